import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Named gates a test opens to let a held route go on: how a test holds a transfer open until it
/// has acted on it (paused it, changed its file), instead of hoping the body is slow enough.
/// Names are process-wide; use a fresh one per test (a UUID). Routes: `/gated-upload` (holds the
/// request body), `/gated-bytes` (holds the response body) and `/reply?gate=NAME` (holds the answer).
enum LoopbackGates {
    private static let open = SanitizedMutex(Set<String>())

    static func isOpen(_ name: String) -> Bool { open.withLock { $0.contains(name) } }

    static func openGate(_ name: String) { open.withLock { _ = $0.insert(name) } }
}

extension LoopbackServer {
    /// Opens the gate `name`: every request held on it (`/gated-upload?gate=NAME`) goes on, and
    /// later ones do not stop there. Gates stay open for the life of the process.
    public func openGate(_ name: String) {
        LoopbackGates.openGate(name)
    }
}

extension Connection {
    /// `/gated-upload?gate=NAME&after=K`: reads the request body like `/upload` but stops reading
    /// once K bytes (default 0) have arrived, until the test opens gate `NAME` (or the server
    /// stops). The client's send side fills the socket buffers and waits meanwhile. Answers the
    /// same JSON as `/upload`: `bytes`, `checksum`, `chunked`.
    func serveGatedUpload() throws {
        let gate = request.query("gate") ?? ""
        let after = max(0, request.queryInt("after") ?? 0)
        var seen = 0
        var passed = false
        if after == 0 { try waitForGate(gate); passed = true }
        try readBody { chunk in
            seen += chunk.count
            if !passed, seen >= after {
                try waitForGate(gate)
                passed = true
            }
        }
        try respondJSON(200, [
            "bytes": body.length,
            "checksum": String(body.hasher.value),
            "chunked": body.isChunked,
        ])
    }

    /// `/gated-bytes?bytes=N&after=K&gate=NAME`: `Content-Length: N` (default 10 000) of the
    /// generated pattern (as `/drip`, no validators), sending K bytes (default N / 2) and then
    /// waiting for gate `NAME` before the rest. Once the gate is open, later requests go straight
    /// through.
    func serveGatedBytes() throws {
        let total = max(0, request.queryInt("bytes") ?? 10_000)
        let after = min(total, max(0, request.queryInt("after") ?? total / 2))
        let gate = request.query("gate") ?? ""
        try finishRequest()
        try startResponse(200, [("Content-Type", "application/octet-stream")], contentLength: total)
        guard !response.suppressBody else { return }
        try writeGeneratedBody(offset: 0, count: after, seed: nil)
        try flush()
        try waitForGate(gate)
        try writeGeneratedBody(offset: after, count: total - after, seed: nil)
    }

    /// Returns once gate `name` is open; throws when the server stops first.
    func waitForGate(_ name: String) throws {
        while !LoopbackGates.isOpen(name) {
            var fds = [pollfd(fd: core.wakeFD, events: Int16(POLLIN), revents: 0)]
            guard Socket.poll(&fds, timeout: 5) >= 0, fds[0].revents == 0, !core.isStopping else {
                throw ConnectionError.stopped
            }
        }
    }
}
