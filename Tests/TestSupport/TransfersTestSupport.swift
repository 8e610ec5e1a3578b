import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackServer
import AsyncNetworking
@testable import AsyncNetworkingCore

/// Helpers shared by the Transfers test suites.
enum TransfersSupport {
    /// Runs `body` with a new, empty directory that is removed afterwards.
    static func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("TransfersTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// The FNV-1a checksum of a file, read in 1 MiB pieces.
    static func checksum(ofFile url: URL) throws -> UInt64 {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = FNV1a64()
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty { hasher.update(piece) }
        return hasher.value
    }

    /// The FNV-1a checksum of `/bytes/N?seed=S` (or the unseeded pattern when `seed` is nil).
    static func checksum(seed: UInt64?, count: Int) -> UInt64 {
        var hasher = FNV1a64()
        var offset = 0
        while offset < count {
            let length = min(1 << 20, count - offset)
            hasher.update(seed.map { SeededBytes.data(seed: $0, offset: offset, count: length) }
                ?? BytePattern.data(offset: offset, count: length))
            offset += length
        }
        return hasher.value
    }

    /// Compares a file with `/bytes/N?seed=S` in 1 MiB pieces; returns the file's FNV-1a checksum
    /// when every byte matches (and the length is right), else `nil`.
    static func verify(_ url: URL, seed: UInt64, count: Int) throws -> UInt64? {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = FNV1a64()
        var offset = 0
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            guard offset + piece.count <= count, piece == SeededBytes.data(seed: seed, offset: offset, count: piece.count) else { return nil }
            hasher.update(piece)
            offset += piece.count
        }
        return offset == count ? hasher.value : nil
    }

    /// Writes `count` seeded bytes to a new file at `url` in 1 MiB pieces.
    static func writeSeeded(_ url: URL, seed: UInt64, count: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var offset = 0
        while offset < count {
            let length = min(1 << 20, count - offset)
            try handle.write(contentsOf: SeededBytes.data(seed: seed, offset: offset, count: length))
            offset += length
        }
    }

    /// Names of the entries in a directory (hidden ones included).
    static func contents(of directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// Files of the given kinds AsyncNetworking left in the system temporary directory.
    static func temporaryFiles(kinds: [String] = ["upload", "multipart", "download", "copy"]) -> [String] {
        let temporary = FileManager.default.temporaryDirectory
        let names = contents(of: temporary) + contents(of: temporary.appendingPathComponent(TransferFiles.privateDirectoryName))
        return names.filter { name in
            kinds.contains { name.hasPrefix("AsyncNetworking-\($0)-") }
        }
    }

    /// The requests the server saw for `path`, oldest first.
    static func requests(_ server: LoopbackServer, path: String) -> [RecordedRequest] {
        server.requests.filter { $0.path == path }
    }

    /// Whether progress values never go back and end at `total`.
    static func isMonotonic(_ progress: [TransferProgress], endingAt total: Int64) -> Bool {
        guard let last = progress.last, last.completedBytes == total else { return false }
        return zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }
    }
}

extension TransferEvent {
    /// The download or upload progress carried, if any.
    var downloadProgressValue: TransferProgress? {
        if case .downloadProgress(let progress) = self { return progress }
        return nil
    }

    var uploadProgressValue: TransferProgress? {
        if case .uploadProgress(let progress) = self { return progress }
        return nil
    }
}

/// `count` seeded bytes in chunks of `size`, each made only when asked for (bounded memory).
struct SeededChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let count: Int
    let seed: UInt64
    let size: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: SeededChunks
        var offset = 0

        mutating func next() async -> Data? {
            guard offset < chunks.count else { return nil }
            let length = Swift.min(chunks.size, chunks.count - offset)
            defer { offset += length }
            return SeededBytes.data(seed: chunks.seed, offset: offset, count: length)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
}

extension SessionManager {
    /// Runs `action` on the executor, once, when the download `id` has `bytes` on disk — while its
    /// task is certainly running (a loopback body can finish before a consumer sees any event).
    func whenDownload(_ id: TransferID, reaches bytes: [Int64], _ action: @escaping @Sendable (isolated SessionManager, TransferID) -> Void) {
        guard let sink = transfers[id]?.sink as? DownloadSink else { return }
        var remaining = bytes.sorted()
        sink.didWriteChunk = { [unowned self] written, transfer in
            guard let next = remaining.first, written >= next else { return }
            remaining.removeFirst()
            let id = transfer.id
            self.assumeIsolated { action($0, id) }
        }
    }
}

extension DuplexTestServer {
    /// Starts a server and a manager on `transport`, runs `body`, then invalidates the manager and
    /// stops the server whatever happens. `body` puts its own deadline around what could hang, so it
    /// can still assert on ``requests`` afterwards.
    static func withManager(
        transport: SessionManager.Transport = .platformDefault,
        _ body: (DuplexTestServer, SessionManager) async throws -> Void
    ) async throws {
        let server = try DuplexTestServer()
        defer { server.stop() }
        let manager = SessionManager(transport: transport)
        do {
            try await body(server, manager)
        } catch {
            await manager.invalidateAndCancel()
            throw error
        }
        await manager.invalidateAndCancel()
    }

    /// A `POST` of `path` on this server (the body goes to the upload or stream call).
    func post(_ path: String) -> URLRequest {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        return request
    }
}

extension SessionManager {
    /// Full duplex with a body the test produces as it goes: ``stream(for:from:trailers:options:)``
    /// over a new `AsyncStream`, returned with its continuation.
    func openDuplex(
        _ request: URLRequest, trailers: RequestTrailers? = nil
    ) async throws -> (producer: AsyncStream<Data>.Continuation, body: ResponseBody, response: HTTPURLResponse) {
        let (chunks, producer) = AsyncStream<Data>.makeStream()
        let (body, response) = try await stream(for: request, from: chunks, trailers: trailers)
        return (producer, body, response)
    }
}
