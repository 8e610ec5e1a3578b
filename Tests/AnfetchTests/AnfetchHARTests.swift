import AsyncNetworking
import Foundation
import LoopbackServer
import Testing
@testable import AnfetchKit

/// `anfetch --har FILE`: a real run against `LoopbackServer` writes valid HAR 1.2
/// with one entry per request, and no secret value.
struct AnfetchHARTests {
    @Test func harOptionIsParsed() throws {
        guard case .fetch(let options) = try ArgumentParser.parse(["http://a/x", "--har", "out.har"]) else {
            Issue.record("not a fetch")
            return
        }
        #expect(options.harFile == "out.har")
        guard case .fetch(let inline) = try ArgumentParser.parse(["--har=run.har", "http://a/x"]) else { return }
        #expect(inline.harFile == "run.har")
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["http://a/x", "--har"]) }
    }

    @Test func runWritesAHARFileWithoutSecrets() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let directory = try AnfetchEndToEndTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let harFile = directory.appendingPathComponent("run.har")
        let urls = [server.url("/bytes/1000?token=har-s3cr3t").absoluteString, server.url("/status/404").absoluteString]
        let (report, _) = try await AnfetchEndToEndTests.run(urls) { options in
            options.outputDirectory = directory.path
            options.retries = 0
            options.harFile = harFile.path
            options.headers = [FetchOptions.Header(name: "Authorization", value: "Bearer har-bearer-s3cr3t")]
        }
        #expect(report.results.count == 2)
        let data = try Data(contentsOf: harFile)
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("har-s3cr3t") && !text.contains("har-bearer-s3cr3t"), "secrets redacted")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let log = try #require(object["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: Any])?["name"] as? String == "anfetch")
        let entries = try #require(log["entries"] as? [[String: Any]])
        let statuses = entries.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }.sorted()
        #expect(statuses == [200, 404], "\(text)")
        let sizes = entries.compactMap { (($0["response"] as? [String: Any])?["content"] as? [String: Any])?["size"] as? Int }
        #expect(sizes.contains(1000))
        #expect(server.requests.count == 2)
    }
}
