import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension MultipartFormData {
    /// The length of the encoded body in bytes: the exact `Content-Length`.
    ///
    /// - Throws: ``NetworkingError/Kind/fileReadFailed`` when a file part's file is missing or unreadable.
    public func contentLength() throws(NetworkingError) -> Int64 {
        var length: Int64 = 0
        for segment in segments {
            switch segment {
            case .bytes(let data): length += Int64(data.count)
            case .file(let url):
                try Self.checkReadable(url)
                guard let size = TransferFiles.size(of: url) else {
                    throw NetworkingError(.fileReadFailed, "no readable file at \(url.path) for a multipart part", fileURL: url)
                }
                length += size
            case .stream(let size, _):
                length += size
            }
        }
        return length
    }

    /// The whole encoded body in memory (file parts read whole): for small forms.
    ///
    /// - Throws: ``NetworkingError/Kind/fileReadFailed`` when a file part cannot be read.
    public func encoded() throws(NetworkingError) -> Data {
        var body = Data()
        let reader = MultipartBodyReader(self)
        try reader.drain { body.append(contentsOf: $0) }
        return body
    }

    /// Writes the encoded body to a new file in 256 KiB chunks, reading file parts from disk as it
    /// goes (AFNetworking's `requestWithMultipartFormRequest:writingStreamContentsToFile:`): memory
    /// stays bounded whatever the size of the parts. Blocking; call it off the main thread and off
    /// any actor that must stay responsive.
    ///
    /// - Throws: ``NetworkingError/Kind/fileWriteFailed`` when `fileURL` exists or cannot be written,
    ///   ``NetworkingError/Kind/fileReadFailed`` when a part's file cannot be read. A partly written
    ///   file is removed.
    public func write(to fileURL: URL) throws(NetworkingError) {
        try write(to: fileURL, isCancelled: { false })
    }

    func write(to fileURL: URL, isCancelled: () -> Bool) throws(NetworkingError) {
        guard !TransferFiles.exists(fileURL) else {
            throw NetworkingError(.fileWriteFailed, "\(fileURL.path) already exists", fileURL: fileURL)
        }
        do throws(NetworkingError) {
            let output = try PartialFile(url: fileURL, request: nil)
            defer { output.close() }
            var offset: Int64 = 0
            try MultipartBodyReader(self).drain { (piece: UnsafeRawBufferPointer) throws(NetworkingError) in
                if isCancelled() { throw NetworkingError(.cancelled, "writing the multipart body was cancelled") }
                try output.write(piece, at: offset)
                offset += Int64(piece.count)
            }
        } catch {
            TransferFiles.remove(fileURL)
            throw error
        }
    }
}

/// Reads an encoded multipart body in order: in-memory pieces, then file parts from disk in
/// chunks. The body of a ``MultipartEncoding/chunked`` upload (through ``BodyInputStream``) and of
/// ``MultipartFormData/write(to:)``.
final class MultipartBodyReader: BodyChunkReader {
    private let segments: [MultipartFormData.Segment]
    /// Each file part's size when the body started: a file that shrinks or grows while it is read
    /// would silently send a different body, so it fails instead.
    private let expectedSizes: [Int: Int64]
    private var index = 0
    private var offset = 0
    private var file: FileChunkReader?
    private var fileRemaining: Int64 = 0
    private var stream: PartStreamReader?
    private(set) var failure: NetworkingError?

    init(_ form: MultipartFormData) {
        segments = form.segments
        var sizes: [Int: Int64] = [:]
        for (index, segment) in form.segments.enumerated() {
            if case .file(let url) = segment { sizes[index] = TransferFiles.size(of: url) ?? 0 }
        }
        expectedSizes = sizes
    }

    func open() {}

    var hasMoreBytes: Bool { failure != nil || index < segments.count }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        do {
            return try next(into: buffer)
        } catch {
            failure = error
            return -1
        }
    }

    /// Calls `body` with each piece of the body, in order, until the end.
    func drain(_ body: (UnsafeRawBufferPointer) throws(NetworkingError) -> Void) throws(NetworkingError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try next(into: buffer)
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    private func next(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkingError) -> Int {
        while index < segments.count {
            switch segments[index] {
            case .bytes(let data):
                let count = min(buffer.count, data.count - offset)
                if count > 0 {
                    let start = data.startIndex + offset
                    data.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), from: start..<(start + count))
                    offset += count
                    return count
                }
            case .file(let url):
                if file == nil {
                    file = try FileChunkReader(url: url)
                    fileRemaining = expectedSizes[index] ?? 0
                }
                if fileRemaining > 0 {
                    let window = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), fileRemaining))])
                    let count = try file!.read(into: window)
                    guard count > 0 else {
                        file = nil
                        throw NetworkingError(
                            .fileReadFailed,
                            "\(url.path) ended \(fileRemaining) bytes early: it changed or vanished while being sent",
                            fileURL: url
                        )
                    }
                    fileRemaining -= Int64(count)
                    return count
                }
                let probe = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<1])
                let extra = try file!.read(into: probe)
                file = nil
                guard extra == 0 else {
                    throw NetworkingError(
                        .fileReadFailed, "\(url.path) grew while being sent: it changed during the upload", fileURL: url
                    )
                }
            case .stream(let length, let make):
                if stream == nil { stream = PartStreamReader(make(), length: length) }
                if let count = try stream!.read(into: buffer) { return count }
                stream = nil
            }
            index += 1
            offset = 0
        }
        return 0
    }
}

/// Reads one stream part: exactly its declared length, or a typed error.
final class PartStreamReader {
    private let stream: InputStream
    private let length: Int64
    private var remaining: Int64

    init(_ stream: InputStream, length: Int64) {
        self.stream = stream
        self.length = length
        self.remaining = length
        stream.open()
    }

    deinit { stream.close() }

    /// The next bytes into `buffer` (a count > 0), or `nil` once the whole declared length was read.
    ///
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` when the stream fails, ends
    ///   early, or has more bytes than declared (the `Content-Length` would be wrong).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkingError) -> Int? {
        let bytes = buffer.bindMemory(to: UInt8.self)
        if remaining > 0 {
            let count = stream.read(bytes.baseAddress!, maxLength: Int(min(Int64(bytes.count), remaining)))
            guard count > 0 else {
                throw NetworkingError(
                    .requestSerializationFailed,
                    count < 0 ? "a multipart stream part failed after \(length - remaining) of \(length) bytes"
                        : "a multipart stream part ended \(remaining) bytes before its declared length \(length)",
                    // `streamError` is not read: swift-corelibs-foundation traps in it for CF-backed streams.
                    underlyingError: (stream as? BodyInputStream)?.streamError
                )
            }
            remaining -= Int64(count)
            return count
        }
        let extra = stream.read(bytes.baseAddress!, maxLength: 1)
        guard extra <= 0 else {
            throw NetworkingError(.requestSerializationFailed, "a multipart stream part is longer than its declared length \(length)")
        }
        return nil
    }
}
