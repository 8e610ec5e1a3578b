#if os(Linux)
import Glibc
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

@Suite("Curl loop: failures")
struct CurlLoopFailureTests {
    /// Runs one GET and returns its completion and record.
    private func fetch(
        _ path: String, options: CurlTransferOptions = .default
    ) async throws -> (CurlCompletion, CurlRecorder.Record) {
        try await withCurlLoop { server, loop, recorder in
            let id = try loop.get(server.url(path), options: options)
            let completion = await recorder.completion(of: id)
            return (completion, recorder.record(id))
        }
    }

    @Test("connection refused → CURLE_COULDNT_CONNECT → cannotConnectToHost")
    func refused() async throws {
        // A bound socket that never listens: connecting is refused, and no other test's server can
        // take the port meanwhile (a stopped server's port could be reused by a parallel test).
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        try #require(bound)
        let url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/bytes/1")!
        try await withCurlLoop { _, loop, recorder in
            let id = try loop.get(url)
            let completion = await recorder.completion(of: id)
            #expect(completion.code == 7)
            #expect(!completion.message.isEmpty)
            #expect(CurlErrorMapping.urlErrorCode(for: completion.code) == .cannotConnectToHost)
            #expect(recorder.record(id).heads.isEmpty)
        }
    }

    @Test("total timeout → CURLE_OPERATION_TIMEDOUT → timedOut")
    func totalTimeout() async throws {
        var options = CurlTransferOptions()
        options.totalTimeout = .milliseconds(300)
        let (completion, record) = try await fetch("/delay/\(neverEnding)", options: options)
        #expect(completion.code == 28)
        #expect(CurlErrorMapping.urlErrorCode(for: completion.code) == .timedOut)
        #expect(record.heads.isEmpty)
    }

    @Test("idle timeout: a body that stalls mid-way → timedOut after the head and some bytes")
    func idleTimeout() async throws {
        var options = CurlTransferOptions()
        // Generous: the timer also runs while waiting for the head, which a loaded machine delays.
        options.idleTimeout = .seconds(2)
        let (completion, record) = try await fetch("/drip?bytes=20&chunks=2&delay=60000", options: options)
        #expect(completion.code == 28)
        #expect(completion.metrics.total < .seconds(50)) // the idle timer fired, not the drip's end
        #expect(CurlErrorMapping.urlErrorCode(for: completion.code) == .timedOut)
        #expect(record.heads.first?.statusCode == 200)
        #expect(record.bodyCount == 10)
    }

    @Test("time spent paused by the consumer is not idle time")
    func pausedIsNotIdle() async throws {
        try await withCurlLoop { server, loop, recorder in
            var options = CurlTransferOptions()
            options.idleTimeout = .seconds(2)
            let pausedOnce = SanitizedMutex(false)
            recorder.onData { id, _ in
                guard pausedOnce.withLock({ done in defer { done = true }; return !done }) else { return }
                loop.pauseReceiving(id)
            }
            let id = try loop.get(server.url("/bytes/\(32 << 20)"), options: options)
            #expect(await curlEventually { recorder.record(id).bodyCount > 0 })
            try await Task.sleep(for: .seconds(3))
            #expect(recorder.record(id).completion == nil)
            loop.resumeReceiving(id)
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            #expect(recorder.record(id).bodyCount == 32 << 20)
        }
    }

    @Test("a connection closed without a response → CURLE_GOT_NOTHING → badServerResponse")
    func gotNothing() async throws {
        let (completion, _) = try await fetch("/fault/close")
        #expect(completion.code == 52)
        #expect(CurlErrorMapping.urlErrorCode(for: completion.code) == .badServerResponse)
    }

    @Test("a body shorter than its Content-Length → CURLE_PARTIAL_FILE → networkConnectionLost")
    func shortBody() async throws {
        let (completion, record) = try await fetch("/fault/short-body")
        #expect(completion.code == 18)
        #expect(CurlErrorMapping.urlErrorCode(for: completion.code) == .networkConnectionLost)
        #expect(record.body == Data("0123456789".utf8))
        #expect(record.order == ["response", "data", "completed"])
    }

    @Test("an unknown host → CURLE_COULDNT_RESOLVE_HOST → cannotFindHost")
    func unknownHost() async throws {
        try await withCurlLoop { _, loop, recorder in
            var options = CurlTransferOptions()
            options.usesEnvironmentProxy = false
            let id = try loop.get(URL(string: "http://no-such-host.invalid/")!, options: options)
            let completion = await recorder.completion(of: id)
            #expect(completion.code == 6)
            #expect(CurlErrorMapping.urlErrorCode(for: completion.code) == .cannotFindHost)
        }
    }

    @Test("curl answers a Basic challenge itself; the 200 head replaces the 401")
    func credential() async throws {
        var options = CurlTransferOptions()
        options.credential = CurlCredential(user: "u", password: "p", scheme: .basicOrDigest)
        let (completion, record) = try await fetch("/basic-auth/u/p", options: options)
        #expect(completion.succeeded)
        #expect(record.heads.last?.statusCode == 200)
        #expect(curlJSON(record.body)["authenticated"] as? Bool == true)
    }

    @Test("status codes are responses, not failures")
    func statusCodes() async throws {
        let (completion, record) = try await fetch("/status/503")
        #expect(completion.succeeded)
        #expect(record.heads.map(\.statusCode) == [503])
        #expect(record.body == Data("status 503".utf8))
    }
}
#endif
