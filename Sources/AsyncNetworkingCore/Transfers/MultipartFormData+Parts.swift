import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stream parts, parts with custom headers, and request parameters as form fields
/// (AFNetworking's `appendPartWithInputStream:…`, `appendPartWithHeaders:body:` and the
/// `parameters:` of `multipartFormRequestWithMethod:`).
extension MultipartFormData {
    /// Appends a part read from a stream of exactly `length` bytes while the body is encoded or
    /// sent (AFNetworking's `appendPartWithInputStream:name:fileName:length:mimeType:`).
    ///
    /// - Parameters:
    ///   - makeStream: makes a new, unopened stream of the part; called each time the body is
    ///     read (once, or again to re-send it after a 307/308). Its reads should not wait (memory,
    ///     local files): see ``MultipartEncoding/chunked``.
    ///   - length: the exact byte count, for the body's `Content-Length`.
    ///   - filename: makes it a file part. Default `nil`.
    ///   - mimeType: the part's `Content-Type`. Default: inferred from `filename` as for data parts.
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` for a negative `length`. A
    ///   stream that ends early or runs long fails the upload with the same kind, before the
    ///   server can accept a wrong body.
    public mutating func append(
        stream makeStream: @escaping @Sendable () -> InputStream, length: Int64, name: String,
        filename: String? = nil, mimeType: String? = nil
    ) throws(NetworkingError) {
        guard length >= 0 else {
            throw NetworkingError(.requestSerializationFailed, "a multipart stream part cannot have a negative length (\(length))")
        }
        let type = mimeType ?? filename.map(MIMEType.forFileName)
        parts.append(Part(name: name, filename: filename, mimeType: type, content: .stream(length: length, make: makeStream)))
    }

    /// Appends a part whose headers are exactly `headers` (AFNetworking's
    /// `appendPartWithHeaders:body:`), for example a `Content-Disposition` with extra parameters or
    /// a `Content-ID`. CR and LF are removed from names and values.
    public mutating func append(_ body: Data, headers: HTTPHeaders) {
        parts.append(Part(name: "", filename: nil, mimeType: nil, content: .data(body), headers: headers))
    }
}
