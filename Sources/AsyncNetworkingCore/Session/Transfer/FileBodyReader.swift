import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads an upload's file as a request body stream, exactly `length` bytes.
///
/// On Linux file uploads are not handed to URLSession as files: its file body source reads with
/// `DispatchIO` and un-pauses libcurl from the read's completion, which traps
/// (`curl_easy_pause` → error 43, a `try!` in FoundationNetworking) when the transfer was cancelled
/// or ended meanwhile — a process crash reproduced with raw URLSession by cancelling file uploads at
/// random moments. A body stream is read synchronously instead, with no such race; the request
/// carries the file's true `Content-Length` (see ``SessionManager/launch(_:)``).
///
/// A file that shrinks while it is sent fails with ``NetworkingError/Kind/fileReadFailed`` (the body
/// would fall short of its `Content-Length`); bytes past `length` are never sent.
final class FileBodyReader: BodyChunkReader {
    let url: URL
    let length: Int64
    private var file: FileChunkReader?
    private var remaining: Int64
    private(set) var failure: NetworkingError?

    init(url: URL, length: Int64) {
        self.url = url
        self.length = length
        remaining = length
    }

    func open() {}

    var hasMoreBytes: Bool { failure != nil || remaining > 0 }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard failure == nil else { return -1 }
        guard remaining > 0, buffer.count > 0 else { return 0 }
        do throws(NetworkingError) {
            if file == nil { file = try FileChunkReader(url: url) }
            let window = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), remaining))])
            let count = try file!.read(into: window)
            guard count > 0 else {
                throw NetworkingError(
                    .fileReadFailed, "\(url.path) ended \(remaining) bytes early: it changed or vanished while being sent",
                    fileURL: url
                )
            }
            remaining -= Int64(count)
            if remaining == 0 { file = nil }
            return count
        } catch {
            failure = error
            file = nil
            return -1
        }
    }
}
