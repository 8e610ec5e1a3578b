import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AnfetchKit

@Suite("Anfetch summary and exit status")
struct AnfetchSummaryTests {
    static func result(_ url: String, _ outcome: FetchResult.Outcome, bytes: Int64 = 0, error: String? = nil) -> FetchResult {
        FetchResult(url: url, path: outcome == .ok ? "/tmp/\(url.split(separator: "/").last ?? "x")" : nil, bytes: bytes,
                    httpStatus: outcome == .ok ? 200 : nil, outcome: outcome, error: error, seconds: 2, bytesTransferred: bytes)
    }

    @Test func exitStatusIsZeroOnlyWhenEveryURLSucceeded() {
        let ok = [Self.result("http://h/a", .ok, bytes: 10), Self.result("http://h/b", .ok, bytes: 5)]
        #expect(Summary.exitStatus(ok, interrupted: false) == 0)
        #expect(Summary.exitStatus(ok + [Self.result("http://h/c", .failed, error: "HTTP 404 Not Found")], interrupted: false) == 1)
        #expect(Summary.exitStatus(ok + [Self.result("http://h/d", .interrupted)], interrupted: true) == 130)
        #expect(Summary.exitStatus([], interrupted: false) == 0)
    }

    @Test func onePlainLinePerFailure() {
        let results = [Self.result("http://h/a", .ok, bytes: 1), Self.result("http://h/b", .failed, error: "HTTP 404 Not Found"),
                       Self.result("nope", .failed, error: "invalid URL (no http:// or https://)")]
        #expect(Summary.failureLines(results) == [
            "failed: http://h/b: HTTP 404 Not Found", "failed: nope: invalid URL (no http:// or https://)",
        ])
        #expect(Summary.line(results, seconds: 2) == "1 of 3 files, 1 B in 2.00 s (0 B/s); 2 failed")
    }

    @Test func jsonHasEveryFieldPerURL() throws {
        let results = [Self.result("http://h/a.bin", .ok, bytes: 4096), Self.result("http://h/b", .failed, error: "connection refused")]
        let data = Data(Summary.json(results, seconds: 2).utf8)
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(document["ok"] as? Int == 1)
        #expect(document["failed"] as? Int == 1)
        let files = try #require(document["files"] as? [[String: Any]])
        #expect(files.count == 2)
        #expect(files[0]["url"] as? String == "http://h/a.bin")
        #expect(files[0]["path"] as? String == "/tmp/a.bin")
        #expect(files[0]["bytes"] as? Int == 4096)
        #expect(files[0]["status"] as? String == "ok")
        #expect(files[0]["httpStatus"] as? Int == 200)
        #expect(files[0]["error"] is NSNull)
        #expect(files[0]["seconds"] as? Double == 2)
        #expect(files[0]["bytesPerSecond"] as? Double == 2048)
        #expect(files[1]["status"] as? String == "failed")
        #expect(files[1]["error"] as? String == "connection refused")
        #expect(files[1]["path"] is NSNull)
    }

    @Test func resumeCommandListsOnlyUnfinishedURLsQuotedAndRedacted() throws {
        var options = FetchOptions()
        options.outputDirectory = "my files"
        options.jobs = 2
        options.headers = [.init(name: "Authorization", value: "Bearer s3cret"), .init(name: "X-Trace", value: "1")]
        let urls = ["http://h/a", "http://h/b?x=1&y=2", "http://u:pw@h/c"]
        let results = [Self.result(urls[0], .ok), Self.result(urls[1], .interrupted), Self.result(urls[2], .notStarted)]
        let command = try #require(Summary.resumeCommand(program: "anfetch", options: options, results: results, urls: urls))
        #expect(command == "anfetch --resume -o 'my files' -j 2 -H 'Authorization: <redacted>' -H 'X-Trace: 1' "
                + "'http://h/b?x=1&y=2' 'http://u:***@h/c'")
        #expect(!command.contains("s3cret") && !command.contains("pw@"))
        #expect(Summary.resumeCommand(program: "anfetch", options: options, results: [Self.result(urls[0], .ok)], urls: [urls[0]]) == nil)
        #expect(Summary.shellQuoted("it's") == "'it'\\''s'")
    }

    @Test func failuresInPlainWords() {
        #expect(FailureWords.describe(NetworkingError(.unacceptableStatusCode(404), "x")) == "HTTP 404 Not Found")
        #expect(FailureWords.describe(NetworkingError(.unacceptableStatusCode(599), "x")) == "HTTP 599")
        #expect(FailureWords.describe(NetworkingError(.transport(.cannotConnectToHost), "x")) == "connection refused")
        #expect(FailureWords.describe(NetworkingError(.transport(.timedOut), "x"), timeout: 2) == "timed out (nothing received for 2.00 s)")
        #expect(FailureWords.describe(NetworkingError(.serverTrustFailed(host: "h", reason: .publicKeyPinMismatch), "x"))
                == "pin mismatch: the public key of h matches none of the --pin keys")
        #expect(FailureWords.describe(NetworkingError(.invalidURL, "x")) == "invalid URL")
    }

    @Test func retriesOnlyWhatCanChange() {
        let dropped = NetworkingError(.transport(.networkConnectionLost), "x")
        #expect(RetryPolicy.shouldRetry(dropped, attempt: 0, limit: 3))
        #expect(!RetryPolicy.shouldRetry(dropped, attempt: 3, limit: 3))
        #expect(RetryPolicy.shouldRetry(NetworkingError(.unacceptableStatusCode(503), "x"), attempt: 0, limit: 1))
        #expect(!RetryPolicy.shouldRetry(NetworkingError(.unacceptableStatusCode(404), "x"), attempt: 0, limit: 3))
        #expect(!RetryPolicy.shouldRetry(NetworkingError(.transport(.cannotConnectToHost), "x"), attempt: 0, limit: 3))
        #expect(RetryPolicy.delay(beforeRetry: 1) == .milliseconds(250))
        #expect(RetryPolicy.delay(beforeRetry: 3) == .milliseconds(1000))
        #expect(RetryPolicy.delay(beforeRetry: 30) == .milliseconds(4000))
    }
}
