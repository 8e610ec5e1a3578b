import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writing a body of unknown length to a temporary file first, so it can be sent with a true
/// `Content-Length` (FoundationNetworking can only send a stream chunked) and re-sent after a
/// 307/308. Memory stays bounded: one chunk at a time.
enum UploadSpooler {
    /// Writes every chunk of `sequence` to a new temporary file (`AsyncNetworking-upload-…`).
    ///
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` when the sequence throws,
    ///   ``NetworkingError/Kind/cancelled`` when the calling task is cancelled,
    ///   ``NetworkingError/Kind/fileWriteFailed`` when the file cannot be written. The file is
    ///   removed on every failure.
    static func spool<Body: AsyncSequence>(_ sequence: Body, request: URLRequest) async throws(NetworkingError) -> URL
    where Body.Element == Data {
        let url = TransferFiles.temporaryURL("upload")
        do throws(NetworkingError) {
            let file = try PartialFile(url: url, request: request)
            defer { file.close() }
            var offset: Int64 = 0
            var iterator = sequence.makeAsyncIterator()
            while true {
                // Once cancelled, the sequence is never asked for another element.
                if Task.isCancelled { throw NetworkingError(.cancelled, "the upload was cancelled while its body was spooled", request: request) }
                let chunk: Data?
                do {
                    chunk = try await iterator.next()
                } catch {
                    if Task.isCancelled { throw NetworkingError(.cancelled, "the upload was cancelled while its body was spooled", request: request) }
                    throw NetworkingError(.requestSerializationFailed, "the upload body sequence threw: \(error)", request: request, underlyingError: error)
                }
                guard let chunk else { break }
                try file.write(chunk, at: offset)
                offset += Int64(chunk.count)
            }
            return url
        } catch {
            TransferFiles.remove(url)
            throw error
        }
    }

    /// Reads a stream to its end into a new temporary file, on a dispatch thread.
    static func spool(stream makeStream: @escaping @Sendable () -> InputStream, request: URLRequest) async throws(NetworkingError) -> URL {
        let url = TransferFiles.temporaryURL("upload")
        return try await BlockingIO.run { isCancelled throws(NetworkingError) in
            do throws(NetworkingError) {
                let file = try PartialFile(url: url, request: request)
                defer { file.close() }
                let stream = makeStream()
                stream.open()
                defer { stream.close() }
                let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 256 << 10)
                defer { buffer.deallocate() }
                var offset: Int64 = 0
                while true {
                    if isCancelled() { throw NetworkingError(.cancelled, "the upload was cancelled while its body was spooled", request: request) }
                    let count = stream.read(buffer, maxLength: 256 << 10)
                    if count == 0 { break }
                    guard count > 0 else {
                        throw NetworkingError(
                            .requestSerializationFailed, "the upload body stream failed: \(stream.streamError.map { "\($0)" } ?? "unknown error")",
                            request: request, underlyingError: stream.streamError
                        )
                    }
                    try file.write(UnsafeRawBufferPointer(start: buffer, count: count), at: offset)
                    offset += Int64(count)
                }
                return url
            } catch {
                TransferFiles.remove(url)
                throw error
            }
        }
    }
}
