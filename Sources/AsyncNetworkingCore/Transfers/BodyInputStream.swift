import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Something that produces a request body piece by piece, read synchronously by URLSession.
protocol BodyChunkReader: AnyObject {
    /// Called once when URLSession opens the body.
    func open()
    /// `false` only after the whole body was read cleanly.
    var hasMoreBytes: Bool { get }
    /// Copies up to `buffer.count` bytes: the count, 0 at the end, -1 on failure.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// Why reading failed, if it did.
    var failure: NetworkingError? { get }
}

/// An `InputStream` over a ``BodyChunkReader``: how a streamed body is handed to URLSession
/// (`URLRequest.httpBodyStream`). Created and read on URLSession's own thread only.
final class BodyInputStream: InputStream {
    private let reader: any BodyChunkReader
    private var status = Stream.Status.notOpen

    init(reader: any BodyChunkReader) {
        self.reader = reader
        super.init(data: Data())
    }

    override func open() {
        guard status == .notOpen else { return }
        status = .open
        reader.open()
    }

    override func close() { status = .closed }

    override var streamStatus: Stream.Status { status }

    override var streamError: (any Error)? { reader.failure }

    /// Why reading stopped early, if it did.
    var failure: NetworkingError? { reader.failure }

    override var hasBytesAvailable: Bool { status == .open && reader.hasMoreBytes }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard status == .open, length > 0 else { return status == .atEnd ? 0 : -1 }
        let count = reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
        if count == 0 { status = .atEnd }
        if count < 0 { status = .error }
        return count
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>
    ) -> Bool { false }
}
