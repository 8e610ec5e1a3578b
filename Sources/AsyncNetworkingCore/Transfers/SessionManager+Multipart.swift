import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a ``MultipartFormData`` body is sent.
public enum MultipartEncoding: Sendable, Hashable {
    /// In memory when the encoded body is at most `memoryThreshold` bytes, else as
    /// ``temporaryFile``. Both send a true `Content-Length`.
    case automatic(memoryThreshold: Int64)
    /// Written to a temporary file in 256 KiB chunks first (file parts read from disk as it goes),
    /// then sent from that file with a true `Content-Length` and deleted when the transfer ends, on
    /// every path (AFNetworking's `writingStreamContentsToFile`). Re-sent whole after a 307/308.
    case temporaryFile
    /// Read from memory and disk while it is sent, with `Transfer-Encoding: chunked` and no
    /// temporary file. Re-sent after a 307/308. Some servers refuse chunked request bodies; file
    /// parts are read inside FoundationNetworking's process-wide transfer lock (local disks only).
    case chunked

    /// ``automatic(memoryThreshold:)`` with 10 MiB.
    public static let `default` = MultipartEncoding.automatic(memoryThreshold: 10 << 20)
}

/// Multipart form uploads (AFNetworking's `multipartFormRequestWithMethod:…constructingBodyWithBlock:`
/// and `uploadTaskWithStreamedRequest:`).
extension SessionManager {
    /// Uploads `form` with `request` and returns the response body and response.
    ///
    /// The request gets the form's `Content-Type` (with its boundary) and, unless
    /// ``MultipartEncoding/chunked``, its exact `Content-Length`; a `GET` request (the default
    /// method) is sent as `POST`. Suspends while the body is encoded (in memory or to a temporary
    /// file, off the manager's executor) and until the transfer ends. Cancelling the calling task
    /// cancels either and throws ``NetworkingError/Kind/cancelled``; a temporary file is always deleted.
    ///
    /// - Parameter encoding: default ``MultipartEncoding/default`` (in memory up to 10 MiB, else a
    ///   temporary file).
    /// - Throws: ``NetworkingError/Kind/fileReadFailed`` (with the file's URL) when a file part is
    ///   missing or unreadable — before anything is sent; the transfer's errors otherwise.
    public nonisolated func upload(
        multipart form: MultipartFormData, for request: URLRequest,
        encoding: MultipartEncoding = .default, options: TransferOptions = .default
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        let (request, source, resources) = try await Self.prepareMultipart(form, request: request, encoding: encoding)
        return try await uploadAndCollect(request, body: source, options: options, resources: resources)
    }

    /// Uploads `form` to `url` with a `POST`. See ``upload(multipart:for:encoding:options:)``.
    public nonisolated func upload(
        multipart form: MultipartFormData, to url: URL,
        encoding: MultipartEncoding = .default, options: TransferOptions = .default
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        return try await upload(multipart: form, for: request, encoding: encoding, options: options)
    }

    /// Starts an upload of `form` and returns its handle; its events report upload progress against
    /// the body's length. Suspends only while the body is encoded. See
    /// ``upload(multipart:for:encoding:options:)``.
    public nonisolated func uploadTask(
        with request: URLRequest, multipart form: MultipartFormData,
        encoding: MultipartEncoding = .default, options: TransferOptions = .default
    ) async throws(NetworkingError) -> TransferHandle {
        let (request, source, resources) = try await Self.prepareMultipart(form, request: request, encoding: encoding)
        return try await uploadHandle(request, body: source, options: options, resources: resources)
    }

    private static func prepareMultipart(
        _ form: MultipartFormData, request: URLRequest, encoding: MultipartEncoding
    ) async throws(NetworkingError) -> (URLRequest, UploadSource, UploadBodyResources) {
        try RequestValidation.validate(request)
        var request = request
        if (request.httpMethod ?? "GET").uppercased() == "GET" { request.httpMethod = "POST" }
        request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        request.httpBody = nil
        let length: Int64
        do {
            length = try form.contentLength()
        } catch {
            throw error.adding(request: request)
        }
        switch encoding {
        case .automatic(let threshold) where length <= threshold:
            let body = try await BlockingIO.run { _ throws(NetworkingError) in try form.encoded() }
            return (request, .data(body), .none)
        case .automatic, .temporaryFile:
            let file = TransferFiles.temporaryURL("multipart")
            try await BlockingIO.run { isCancelled throws(NetworkingError) in try form.write(to: file, isCancelled: isCancelled) }
            return (request, .file(file), UploadBodyResources(temporaryFile: file))
        case .chunked:
            let body = StreamedBody(length: length) { BodyInputStream(reader: MultipartBodyReader(form)) }
            return (request, .stream(body), .none)
        }
    }
}
