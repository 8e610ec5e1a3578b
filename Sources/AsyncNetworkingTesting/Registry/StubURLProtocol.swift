import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` of stubbed sessions: finds the task's ``HTTPStubs`` through the task's
/// description (set from the session's by ``SessionManager``), records the request, and plays the
/// stub's response to URLSession — head, body pieces, completion — from a task of its own.
package final class StubURLProtocol: URLProtocol {
    /// Whether loading was stopped (cancelled by URLSession), and the task playing the response.
    private struct Loading: Sendable {
        var stopped = false
        var player: Task<Void, Never>?
    }

    private let loading = SanitizedMutex(Loading())

    package override class func canInit(with request: URLRequest) -> Bool { true }
    package override class func canInit(with task: URLSessionTask) -> Bool { true }
    package override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    package override func startLoading() {
        let stubs = HTTPStubs.registry(forTaskDescription: task?.taskDescription)
        let recorded = StubRequest(urlRequest: request, body: Self.body(of: request))
        let target = Target(protocolInstance: self, loading: loading)
        let player = Self.startPlaying(recorded, stubs: stubs, to: target)
        let stoppedAlready = loading.withLock { state -> Bool in
            state.player = player
            return state.stopped
        }
        if stoppedAlready { player.cancel() }
    }

    package override func stopLoading() {
        let player = loading.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            return state.player
        }
        player?.cancel()
    }

    /// The body: `httpBody`, or what the body stream produces (read here, before answering).
    private static func body(of request: URLRequest) -> Data? {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return nil }
        stream.open()
        defer { stream.close() }
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { break }
            body.append(contentsOf: buffer[0..<count])
        }
        return body
    }

    private static func startPlaying(_ request: StubRequest, stubs: HTTPStubs?, to target: Target) -> Task<Void, Never> {
        Task { await play(request, stubs: stubs, to: target) }
    }

    /// Plays the stub's answer to `target`.
    private static func play(_ request: StubRequest, stubs: HTTPStubs?, to target: Target) async {
        let method = request.method.rawValue
        let where_ = Redaction.url(request.url)
        guard let stubs else {
            return target.fail(NetworkingError(.unmatchedStub, "\(method) \(where_): the HTTPStubs of this manager were released"))
        }
        guard let handler = stubs.handler(for: request) else {
            return target.fail(NetworkingError(.unmatchedStub, "no stub matches \(method) \(where_)", request: request.urlRequest))
        }
        let response: StubResponse
        do {
            response = try await handler(request)
        } catch {
            return target.fail(error)
        }
        do {
            if response.delay > .zero { try await Task.sleep(for: response.delay) }
            if let error = response.error { return target.fail(error) }
            var headers = response.headers
            let isHead = request.method == .head
            if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Content-Length") == .orderedSame }) {
                headers["Content-Length"] = String(response.body.count)
            }
            guard let head = HTTPURLResponse(url: request.url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: headers) else {
                return target.fail(NetworkingError(.transport(.badServerResponse), "the stub's response could not be built"))
            }
            guard target.send({ $0.client?.urlProtocol($0, didReceive: head, cacheStoragePolicy: .notAllowed) }) else { return }
            let body = isHead ? Data() : response.body
            let size = response.chunkSize ?? max(1, body.count)
            var offset = 0
            while offset < body.count {
                if offset > 0, response.chunkInterval > .zero { try await Task.sleep(for: response.chunkInterval) }
                try Task.checkCancellation()
                let piece = body.subdata(in: offset..<min(body.count, offset + size))
                offset += piece.count
                guard target.send({ $0.client?.urlProtocol($0, didLoad: piece) }) else { return }
            }
            _ = target.send { $0.client?.urlProtocolDidFinishLoading($0) }
        } catch {
            // Cancelled: URLSession stopped loading and reports the cancellation itself.
        }
    }

    /// The protocol instance as the player task reaches it. `URLProtocol` is not `Sendable`;
    /// every use goes through ``send(_:)``, which holds the instance's lock and checks that
    /// URLSession has not stopped loading, so no call reaches the client after `stopLoading()`
    /// and no two calls overlap. (`@unchecked`: the lock is what makes the access safe.)
    private struct Target: @unchecked Sendable { // reason: URLProtocolClient is not Sendable; every use is under the lock
        // reason: `StubURLProtocol` is not Sendable; every use holds `loading`'s lock (see above).
        let protocolInstance: StubURLProtocol
        let loading: SanitizedMutex<Loading>

        /// Calls `body` with the instance unless loading was stopped; returns whether it ran.
        func send(_ body: (StubURLProtocol) -> Void) -> Bool {
            loading.withLock { state in
                guard !state.stopped else { return false }
                body(protocolInstance)
                return true
            }
        }

        /// Fails the load with `error` (a ``NetworkingError`` reaches the caller as it is).
        func fail(_ error: any Error) {
            _ = send { $0.client?.urlProtocol($0, didFailWithError: error) }
        }
    }
}
