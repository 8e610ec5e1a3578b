#if os(Linux)
import CCurlShim
import Foundation

/// The limit the library is measured against: a bare libcurl multi loop over the same shim the
/// curl transport uses (`CCurlShim`), with nothing of the library — no actor, no streams, no event
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
        var message = [CChar](repeating: 0, count: 512)
        guard message.withUnsafeMutableBufferPointer({ ancurl_load($0.baseAddress, $0.count) }) == 0 else {
            throw BenchmarkError("raw libcurl: " + message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        guard let multi = ancurl_multi_init() else { throw BenchmarkError("raw libcurl: curl_multi_init failed") }
        self.multi = multi
        if let maxHostConnections {
            _ = ancurl_multi_setopt_long(multi, ANCURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections)
        }
        counters = .allocate(capacity: width)
        counters.initialize(repeating: 0, count: width)
        var easies: [OpaquePointer] = []
        for slot in 0..<width {
            guard let easy = ancurl_easy_init() else { throw BenchmarkError("raw libcurl: curl_easy_init failed") }
            _ = ancurl_easy_setopt_ptr(easy, ANCURLOPT_URL, url.absoluteString)
            _ = ancurl_easy_setopt_long(easy, ANCURLOPT_NOSIGNAL, 1)
            _ = ancurl_easy_setopt_long(easy, ANCURLOPT_TCP_NODELAY, 1)
            _ = ancurl_easy_setopt_func(easy, ANCURLOPT_WRITEFUNCTION, rawCurlCount)
            _ = ancurl_easy_setopt_ptr(easy, ANCURLOPT_WRITEDATA, counters + slot)
            easies.append(easy)
        }
        self.easies = easies
    }

    deinit {
        for easy in easies { ancurl_easy_cleanup(easy) }
        _ = ancurl_multi_cleanup(multi)
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
            _ = ancurl_multi_add(multi, easies[slot])
            started += 1
        }
        var running: Int32 = 0
        var ready: Int32 = 0
        var handle: OpaquePointer?
        var result: Int32 = 0
        while finished < count {
            _ = ancurl_multi_perform(multi, &running)
            while ancurl_multi_info_read(multi, &handle, &result) == 1 {
                guard let easy = handle, let slot = easies.firstIndex(of: easy) else { continue }
                _ = ancurl_multi_remove(multi, easy)
                var status = 0
                _ = ancurl_easy_getinfo_long(easy, ANCURLINFO_RESPONSE_CODE, &status)
                guard result == 0, status == 200, counters[slot] == expectedBytes else {
                    throw BenchmarkError("raw libcurl: CURLcode \(result), status \(status), \(counters[slot]) of \(expectedBytes) bytes")
                }
                finished += 1
                if started < count {
                    counters[slot] = 0
                    _ = ancurl_multi_add(multi, easy)
                    started += 1
                }
            }
            if finished < count { _ = ancurl_multi_poll(multi, 1000, &ready) }
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
        var message = [CChar](repeating: 0, count: 512)
        guard message.withUnsafeMutableBufferPointer({ ancurl_load($0.baseAddress, $0.count) }) == 0,
              let multi = ancurl_multi_init() else { throw BenchmarkError("raw libcurl: cannot load libcurl") }
        let counters = UnsafeMutablePointer<Int>.allocate(capacity: 2)
        counters.initialize(repeating: 0, count: 2)
        func easy(_ url: URL, _ slot: Int) throws -> OpaquePointer {
            guard let easy = ancurl_easy_init() else { throw BenchmarkError("raw libcurl: curl_easy_init failed") }
            _ = ancurl_easy_setopt_ptr(easy, ANCURLOPT_URL, url.absoluteString)
            _ = ancurl_easy_setopt_long(easy, ANCURLOPT_NOSIGNAL, 1)
            _ = ancurl_easy_setopt_long(easy, ANCURLOPT_TCP_NODELAY, 1)
            _ = ancurl_easy_setopt_func(easy, ANCURLOPT_WRITEFUNCTION, rawCurlCount)
            _ = ancurl_easy_setopt_ptr(easy, ANCURLOPT_WRITEDATA, counters + slot)
            return easy
        }
        let small = try easy(BenchServer.bytesURL(spec.server, BenchServer.smallBytes), 0)
        let big = try easy(BenchServer.bytesURL(spec.server, spec.bytes), 1)
        defer {
            ancurl_easy_cleanup(small)
            ancurl_easy_cleanup(big)
            _ = ancurl_multi_cleanup(multi)
            counters.deallocate()
        }
        var streaming = false
        var streamStart = ContinuousClock.now
        var streamEnd = ContinuousClock.now

        /// One turn: perform, then handle completions; returns whether the GET finished.
        func turn() throws -> Bool {
            var running: Int32 = 0
            _ = ancurl_multi_perform(multi, &running)
            var handle: OpaquePointer?
            var result: Int32 = 0
            var getDone = false
            while ancurl_multi_info_read(multi, &handle, &result) == 1 {
                guard let easy = handle else { continue }
                _ = ancurl_multi_remove(multi, easy)
                var status = 0
                _ = ancurl_easy_getinfo_long(easy, ANCURLINFO_RESPONSE_CODE, &status)
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
            _ = ancurl_multi_add(multi, small)
            var ready: Int32 = 0
            while try !turn() { _ = ancurl_multi_poll(multi, 1000, &ready) }
            return Measure.seconds(ContinuousClock.now - start) * 1e3
        }

        for _ in 0..<MixedLoad.warmUpCount { _ = try get() }
        var quiet: [Double] = []
        for _ in 0..<MixedLoad.getCount { quiet.append(try get()) }

        counters[1] = 0
        streaming = true
        streamStart = .now
        _ = ancurl_multi_add(multi, big)
        var busy: [Double] = []
        var duringStream = 0
        repeat {
            busy.append(try get())
            if streaming { duringStream += 1 }
        } while busy.count < MixedLoad.getCount && streaming
        var ready: Int32 = 0
        while streaming {
            _ = try turn()
            if streaming { _ = ancurl_multi_poll(multi, 1000, &ready) }
        }
        let seconds = Measure.seconds(streamEnd - streamStart)
        return MixedLoadFigures(
            quietP50: Measure.percentile(quiet, 50), quietP99: Measure.percentile(quiet, 99),
            busyP50: Measure.percentile(busy, 50), busyP99: Measure.percentile(busy, 99),
            busyMax: busy.max() ?? 0, gets: busy.count, getsDuringStream: duringStream,
            streamSeconds: seconds, streamMegabytesPerSecond: Measure.megabytesPerSecond(spec.bytes, seconds: seconds)
        )
    }
}

/// The write callback: counts the bytes and takes them all.
private let rawCurlCount: ancurl_data_callback = { _, size, count, userdata in
    userdata!.assumingMemoryBound(to: Int.self).pointee += size * count
    return size * count
}
#endif
