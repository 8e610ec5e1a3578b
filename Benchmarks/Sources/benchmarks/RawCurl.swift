import BenchmarkSupport
import CRawCurl
import Foundation

/// The limit the library is measured against: a bare libcurl multi loop on the libcurl.so.4 the
/// curl transport loads (through the benchmark's own `CRawCurl`, not the library's shim), with nothing of the library — no actor, no streams, no event
/// batches, no request conversion. A fixed set of easy handles (one per slot in flight), each set
/// up once and re-added to the multi handle for every request, so connections stay alive between
/// requests and rounds as they do in the transport's pool. The write callback only counts bytes.
/// Like the transport, it opens at most 6 connections to the host by default (the library's
/// `httpMaximumConnectionsPerHost`; more transfers in flight wait inside curl for one).
///
/// The loop runs on a thread of its own (as the transport's does), never on Swift's cooperative
/// pool; the caller awaits the end of each run.
final class RawCurlClient: @unchecked Sendable {
    // reason: every field is touched only by the thread running `runBlocking`, one run at a time
    // (runs are awaited one after another), or in init/deinit.

    private let multi: OpaquePointer
    private let easies: [OpaquePointer]
    /// One byte counter per easy handle, the write callback's userdata.
    private let counters: UnsafeMutablePointer<Int>

    /// The library's default connection limit per host (`httpMaximumConnectionsPerHost` of its
    /// configuration, which the curl transport passes as `CURLMOPT_MAX_HOST_CONNECTIONS`).
    static let libraryHostConnections = 6

    /// Creates `width` easy handles for `url` on one multi handle, at most `maxHostConnections`
    /// connections open to the host (`nil`: no limit, one per handle in flight).
    init(url: URL, width: Int, maxHostConnections: Int? = RawCurlClient.libraryHostConnections) throws {
        try Self.load()
        guard let multi = rawcurl_multi_init() else { throw BenchmarkError("raw libcurl: curl_multi_init failed") }
        self.multi = multi
        if let maxHostConnections {
            _ = rawcurl_multi_setopt_long(multi, Int32(RAWCURLMOPT_MAX_HOST_CONNECTIONS), maxHostConnections)
        }
        counters = .allocate(capacity: width)
        counters.initialize(repeating: 0, count: width)
        var easies: [OpaquePointer] = []
        for slot in 0..<width {
            easies.append(try Self.easy(url, counting: counters + slot))
        }
        self.easies = easies
    }

    /// Loads libcurl.so.4 (once per process).
    static func load() throws {
        var message = [CChar](repeating: 0, count: 512)
        guard message.withUnsafeMutableBufferPointer({ rawcurl_load($0.baseAddress, $0.count) }) == 0 else {
            throw BenchmarkError("raw libcurl: " + message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
    }

    /// `curl_version()` of the libcurl.so.4 the loop loads, for the tables' headers.
    static func version() -> String {
        guard (try? load()) != nil, let version = rawcurl_version() else { return "not loaded" }
        return String(cString: version)
    }

    /// An easy handle for GET `url` whose write callback only counts the body into `counter`.
    static func easy(_ url: URL, counting counter: UnsafeMutablePointer<Int>) throws -> OpaquePointer {
        guard let easy = rawcurl_easy_init() else { throw BenchmarkError("raw libcurl: curl_easy_init failed") }
        _ = rawcurl_easy_setopt_pointer(easy, Int32(RAWCURLOPT_URL), url.absoluteString)
        _ = rawcurl_easy_setopt_long(easy, Int32(RAWCURLOPT_NOSIGNAL), 1)
        _ = rawcurl_easy_setopt_long(easy, Int32(RAWCURLOPT_TCP_NODELAY), 1)
        _ = rawcurl_easy_setopt_write(easy, Int32(RAWCURLOPT_WRITEFUNCTION), rawCurlCount)
        _ = rawcurl_easy_setopt_pointer(easy, Int32(RAWCURLOPT_WRITEDATA), counter)
        return easy
    }

    deinit {
        for easy in easies { rawcurl_easy_cleanup(easy) }
        _ = rawcurl_multi_cleanup(multi)
        counters.deallocate()
    }

    /// `count` GETs, at most `width` (the handle count) in flight, on the loop's own thread; each
    /// must be a 200 with `expectedBytes` of body.
    func run(count: Int, expectedBytes: Int) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread { [self] in
                do {
                    try runBlocking(count: count, expectedBytes: expectedBytes)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "raw libcurl loop"
            thread.start()
        }
    }

    /// The loop itself: perform, read completions (re-adding the finished handle while requests
    /// are left), poll.
    private func runBlocking(count: Int, expectedBytes: Int) throws {
        var started = 0
        var finished = 0
        for slot in 0..<min(easies.count, count) {
            counters[slot] = 0
            _ = rawcurl_multi_add(multi, easies[slot])
            started += 1
        }
        var running: Int32 = 0
        var ready: Int32 = 0
        var handle: OpaquePointer?
        var result: Int32 = 0
        while finished < count {
            _ = rawcurl_multi_perform(multi, &running)
            while rawcurl_multi_done(multi, &handle, &result) == 1 {
                guard let easy = handle, let slot = easies.firstIndex(of: easy) else { continue }
                _ = rawcurl_multi_remove(multi, easy)
                var status = 0
                _ = rawcurl_easy_getinfo_long(easy, Int32(RAWCURLINFO_RESPONSE_CODE), &status)
                guard result == 0, status == 200, counters[slot] == expectedBytes else {
                    throw BenchmarkError("raw libcurl: CURLcode \(result), status \(status), \(counters[slot]) of \(expectedBytes) bytes")
                }
                finished += 1
                if started < count {
                    counters[slot] = 0
                    _ = rawcurl_multi_add(multi, easy)
                    started += 1
                }
            }
            if finished < count { _ = rawcurl_multi_poll(multi, 1000, &ready) }
        }
    }
}

/// mixed-load's limit: one bare libcurl multi loop on one thread that streams the big body (its
/// write callback only counts) while it makes the sequential small GETs on a second, reused easy
/// handle — no hop to another thread anywhere. The phases are ``MixedLoad``'s: warm-up, quiet
/// GETs, then GETs while the stream runs (none started after it ended), then the stream's end.
enum RawCurlMixedLoad {
    static func run(_ spec: ChildSpec) async throws -> MixedLoadFigures {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MixedLoadFigures, any Error>) in
            let thread = Thread {
                do {
                    continuation.resume(returning: try runBlocking(spec))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "raw libcurl mixed-load"
            thread.start()
        }
    }

    private static func runBlocking(_ spec: ChildSpec) throws -> MixedLoadFigures {
        try RawCurlClient.load()
        guard let multi = rawcurl_multi_init() else { throw BenchmarkError("raw libcurl: curl_multi_init failed") }
        let counters = UnsafeMutablePointer<Int>.allocate(capacity: 2)
        counters.initialize(repeating: 0, count: 2)
        let small = try RawCurlClient.easy(BenchServer.bytesURL(spec.server, BenchServer.smallBytes), counting: counters)
        let big = try RawCurlClient.easy(BenchServer.bytesURL(spec.server, spec.bytes), counting: counters + 1)
        defer {
            rawcurl_easy_cleanup(small)
            rawcurl_easy_cleanup(big)
            _ = rawcurl_multi_cleanup(multi)
            counters.deallocate()
        }
        var streaming = false
        var streamStart = ContinuousClock.now
        var streamEnd = ContinuousClock.now

        /// One turn: perform, then handle completions; returns whether the GET finished.
        func turn() throws -> Bool {
            var running: Int32 = 0
            _ = rawcurl_multi_perform(multi, &running)
            var handle: OpaquePointer?
            var result: Int32 = 0
            var getDone = false
            while rawcurl_multi_done(multi, &handle, &result) == 1 {
                guard let easy = handle else { continue }
                _ = rawcurl_multi_remove(multi, easy)
                var status = 0
                _ = rawcurl_easy_getinfo_long(easy, Int32(RAWCURLINFO_RESPONSE_CODE), &status)
                let slot = easy == small ? 0 : 1
                let expected = slot == 0 ? BenchServer.smallBytes : spec.bytes
                guard result == 0, status == 200, counters[slot] == expected else {
                    throw BenchmarkError("raw libcurl mixed-load: CURLcode \(result), status \(status), \(counters[slot]) of \(expected) bytes")
                }
                if slot == 0 {
                    getDone = true
                } else {
                    streaming = false
                    streamEnd = .now
                }
            }
            return getDone
        }
        func get() throws -> Double {
            counters[0] = 0
            let start = ContinuousClock.now
            _ = rawcurl_multi_add(multi, small)
            var ready: Int32 = 0
            while try !turn() { _ = rawcurl_multi_poll(multi, 1000, &ready) }
            return Measure.seconds(ContinuousClock.now - start) * 1e3
        }

        for _ in 0..<MixedLoad.warmUpCount { _ = try get() }
        var quiet: [Double] = []
        for _ in 0..<MixedLoad.getCount { quiet.append(try get()) }

        counters[1] = 0
        streaming = true
        streamStart = .now
        _ = rawcurl_multi_add(multi, big)
        var busy: [Double] = []
        var duringStream = 0
        repeat {
            busy.append(try get())
            if streaming { duringStream += 1 }
        } while busy.count < MixedLoad.getCount && streaming
        var ready: Int32 = 0
        while streaming {
            _ = try turn()
            if streaming { _ = rawcurl_multi_poll(multi, 1000, &ready) }
        }
        return MixedLoadFigures(
            quiet: quiet, busy: busy, getsDuringStream: duringStream, bytes: spec.bytes,
            streamSeconds: Measure.seconds(streamEnd - streamStart)
        )
    }
}

/// The write callback: counts the bytes and takes them all.
private let rawCurlCount: rawcurl_write_callback = { _, size, count, userdata in
    userdata!.assumingMemoryBound(to: Int.self).pointee += size * count
    return size * count
}
