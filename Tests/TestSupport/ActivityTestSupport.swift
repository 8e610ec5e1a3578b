import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackServer
import AsyncNetworking

/// Reads a manager's activity stream into memory from a task of its own.
final class ActivityRecorder: Sendable {
    private let box: SanitizedMutex<[TransferActivity]>
    private let reader: Task<Void, Never>
    let stream: TransferActivityStream

    init(_ stream: TransferActivityStream) {
        let box = SanitizedMutex<[TransferActivity]>([])
        self.box = box
        self.stream = stream
        reader = Task { for await event in stream { box.withLock { $0.append(event) } } }
    }

    /// Everything recorded so far.
    var all: [TransferActivity] { box.withLock { $0 } }

    /// The events about one transfer, in order.
    func events(of id: TransferID) -> [TransferActivity] { all.filter { $0.transferID == id } }

    /// The transfer's completion, once recorded (waits up to the hang deadline).
    func completion(of id: TransferID) async -> TransferCompletion? {
        _ = await eventually { self.events(of: id).contains { if case .completed = $0 { true } else { false } } }
        for case .completed(let done) in events(of: id) { return done }
        return nil
    }

    /// The transfers seen so far, oldest first, once at least `count` were seen (or the deadline passed).
    func transferIDs(atLeast count: Int) async -> [TransferID] {
        _ = await eventually { Set(self.all.compactMap(\.transferID)).count >= count }
        return Set(all.compactMap(\.transferID)).sorted()
    }

    /// Waits for the stream to end (after `.invalidated`).
    func finished() async { await reader.value }

    func stop() { reader.cancel() }
}

extension TransferActivity {
    /// A short name for asserting orders.
    var name: String {
        switch self {
        case .started: "started"
        case .suspended: "suspended"
        case .response: "response"
        case .uploadProgress: "uploadProgress"
        case .downloadProgress: "downloadProgress"
        case .downloadResumed: "downloadResumed"
        case .redirected: "redirected"
        case .completed: "completed"
        case .invalidated: "invalidated"
        case .data: "data"
        }
    }

    var downloadProgress: TransferProgress? {
        if case .downloadProgress(_, let value) = self { return value }
        return nil
    }

    var uploadProgress: TransferProgress? {
        if case .uploadProgress(_, let value) = self { return value }
        return nil
    }
}

/// A thread-safe counter for tests.
final class ParityCounter: Sendable {
    private let value = SanitizedMutex<Int>(0)
    func add(_ amount: Int = 1) { value.withLock { $0 += amount } }
    func load() -> Int { value.withLock { $0 } }
}

/// A body that is still arriving whenever the test acts on it. On curl, 16 GiB at full speed (its
/// flow control holds it to the reader's pace); on URLSession, which has no back-pressure and
/// shares one work queue across the process, a slow drip, so it never starves other tests.
func endlessBody(_ server: LoopbackServer, transport: SessionManager.Transport) -> URL {
    transport == .curl
        ? server.url("/bytes/\(Int64(1) << 34)")
        : server.url("/drip?bytes=10000000&chunks=2000&delay=\(neverEnding / 2000)")
}

/// Whether the test run's default transport is curl (`ASYNCNETWORKING_TRANSPORT` unset or `curl`).
var defaultTransportIsCurl: Bool { SessionManager.Transport.platformDefault == .curl }
