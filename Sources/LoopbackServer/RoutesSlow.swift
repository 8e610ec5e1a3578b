/// `/delay/MS`, `/drip` and `/drop`: slow and truncated responses. Every wait watches the
/// socket (a client that leaves is counted in ``LoopbackServer/Stats/clientAborts`` at once)
/// and the stop pipe (so `stop()` never waits for a sleeping handler).
extension Connection {
    /// `/delay/MS`: waits MS milliseconds, then 200 `delayed MS`.
    func serveDelay(_ text: String) throws {
        guard let milliseconds = Int(text), milliseconds >= 0 else {
            return try respondText(400, "invalid delay \(text)\n")
        }
        try sleep(milliseconds: milliseconds)
        try respondText(200, "delayed \(milliseconds)")
    }

    /// `/drip?bytes=N&delay=MS&chunks=C&head_delay=MS`: N patterned bytes (default 10) in C
    /// pieces (default N) with MS milliseconds (default 100) between pieces, after waiting
    /// `head_delay` milliseconds (default 0) before the head. `Content-Length` is N.
    func serveDrip() throws {
        let total = max(0, request.queryInt("bytes") ?? 10)
        let delay = max(0, request.queryInt("delay") ?? 100)
        let headDelay = max(0, request.queryInt("head_delay") ?? 0)
        let chunks = total == 0 ? 0 : min(total, max(1, request.queryInt("chunks") ?? total))
        if headDelay > 0 { try sleep(milliseconds: headDelay) }
        try startResponse(200, [("Content-Type", "application/octet-stream")], contentLength: total)
        guard !response.suppressBody else { return }
        var offset = 0
        for index in 0..<chunks {
            let size = total / chunks + (index < total % chunks ? 1 : 0)
            try writeGeneratedBody(offset: offset, count: size, seed: nil)
            offset += size
            if index < chunks - 1 {
                try sleep(milliseconds: delay)
            }
        }
    }

    /// `/drop?after=K&total=T`: announces T bytes (default 10 000), sends K (default 100), closes.
    func serveDrop() throws {
        let total = max(0, request.queryInt("total") ?? 10_000)
        let after = max(0, request.queryInt("after") ?? 100)
        try startResponse(200, [("Content-Type", "application/octet-stream")], contentLength: total)
        try writeGeneratedBody(offset: 0, count: min(after, total), seed: nil)
        try flush()
        disposition = .closeAbruptly
    }
}
