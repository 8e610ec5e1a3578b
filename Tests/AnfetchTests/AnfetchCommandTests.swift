import AsyncNetworking
import Foundation
import LoopbackServer
import Testing
@testable import AnfetchKit

/// The command as a whole (`Anfetch.main`, quiet so only failure lines reach stderr) and the
/// options that change requests: headers, timeout, pins.
@Suite("Anfetch command")
struct AnfetchCommandTests {
    @Test func badCommandLinesExitWith2() async {
        #expect(await Anfetch.main([]) == 2)
        #expect(await Anfetch.main(["--bogus", "http://h/x"]) == 2)
        #expect(await Anfetch.main(["-i", "/nonexistent/anfetch-list-\(UUID().uuidString)"]) == 2)
        #expect(await Anfetch.main(["--help"]) == 0)
    }

    @Test func exitStatusFollowsTheOutcomes() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let directory = try AnfetchEndToEndTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("urls.txt")
        try Data("# two files\n\(server.url("/bytes/64/one.bin"))\n\(server.url("/bytes/32/two.bin"))  # second\n".utf8).write(to: list)
        let good = try await AnfetchEndToEndTests.deadline {
            await Anfetch.main(["--quiet", "-o", directory.path, "-i", list.path])
        }
        #expect(good == 0)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("one.bin").path))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("two.bin").path))
        let bad = try await AnfetchEndToEndTests.deadline {
            await Anfetch.main(["-q", "-o", directory.path, server.url("/bytes/8/three.bin").absoluteString,
                                server.url("/status/500").absoluteString, "--retries", "1"])
        }
        #expect(bad == 1)
        // A 500 is retried once, then reported.
        #expect(server.requests.count { $0.path == "/status/500" } == 2)
    }

    @Test func headersTimeoutAndPinsShapeTheRequests() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let directory = try AnfetchEndToEndTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (headed, _) = try await AnfetchEndToEndTests.run([server.url("/bytes/16/h.bin").absoluteString]) {
            $0.outputDirectory = directory.path
            $0.headers = [.init(name: "X-Trace", value: "anfetch-test")]
        }
        #expect(headed.results[0].outcome == .ok)
        let traced = server.requests.first { $0.path.hasSuffix("h.bin") }?.headers.first { $0.0.lowercased() == "x-trace" }?.1
        #expect(traced == "anfetch-test")

        // A server that never answers: the idle timeout ends it (only this URL runs with a short one,
        // so a loaded machine cannot time out a download that should succeed).
        let (late, _) = try await AnfetchEndToEndTests.run([server.url("/drip/late.bin?head_delay=600000").absoluteString]) {
            $0.outputDirectory = directory.path
            $0.timeout = 1
            $0.retries = 0
        }
        #expect(late.results[0].outcome == .failed)
        #expect(late.results[0].error == "timed out (nothing received for 1.00 s)")

        // With --pin only HTTPS is accepted (the library exempts loopback hosts): a plain http://
        // URL elsewhere is refused before anything is sent, not even a name lookup.
        let (pinned, _) = try await AnfetchEndToEndTests.run(["http://anfetch-test.invalid/x.bin"]) {
            $0.outputDirectory = directory.path
            $0.pins = ["sha256//r8udi/Mxd6pLO7y7hZyUMWq8YnFnIWXCqeHsTDRqy8c="]
        }
        #expect(pinned.results[0].outcome == .failed)
        #expect(pinned.results[0].error == "refused: plain http:// with --pin (pins need https://)")
    }
}
