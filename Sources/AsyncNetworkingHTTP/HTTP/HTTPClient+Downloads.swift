import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads through the client (AFNetworking's `downloadTaskWithRequest:progress:destination:`):
/// relative to ``HTTPClient/baseURL``, with the default headers, the timeout, and the status
/// checked against the client's ``HTTPClient/validation``.
///
/// ```swift
/// let saved = try await client.download("exports/1.csv", to: .directory(downloads))
/// print(saved.value.path, saved.statusCode)
/// ```
///
/// The body streams to a partial file and is moved into place only when complete and successful
/// (see ``SessionManager/downloadTask(with:to:options:)``). The result's `value` is the final
/// file's URL and its `data` is empty.
extension HTTPClient {
    /// Downloads `url` (a `GET` with `parameters` in its query) into `destination`.
    ///
    /// Suspends until the file is in place. With ``DownloadOptions/resumable``, a transport failure
    /// after new bytes reached the disk is continued with a `Range` request, up to
    /// ``DownloadOptions/automaticResumeAttempts`` times. Cancelling the calling task cancels the
    /// download and throws ``NetworkingError/Kind/cancelled``.
    ///
    /// - Parameter options: default: ``DownloadOptions/default`` with the client's ``transferOptions``.
    @discardableResult
    public func download(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        to destination: DownloadDestination, options: DownloadOptions? = nil
    ) async throws(NetworkingError) -> HTTPResponse<URL> {
        let options = options ?? DownloadOptions(transfer: transferOptions)
        return try await options.resumingAutomatically { (options) async throws(NetworkingError) in
            try await downloadTask(url, parameters: parameters, headers: headers, to: destination, options: options).response
        }
    }

    /// Starts downloading `url` into `destination` and returns an ``HTTPTask`` whose events report
    /// download progress and whose value is the final file's URL. Never resumes by itself.
    ///
    /// - Throws: before anything is sent: request building errors and the destination checks of
    ///   ``SessionManager/downloadTask(with:to:options:)``.
    public func downloadTask(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        to destination: DownloadDestination, options: DownloadOptions? = nil
    ) async throws(NetworkingError) -> HTTPTask<URL> {
        var options = options ?? DownloadOptions(transfer: transferOptions)
        let hold: CompletionHold
        (options.transfer, hold) = options.transfer.holdingCompletion()
        let request = try makeRequest(.get, url, parameters: parameters, headers: headers)
        let transfer = try await manager.downloadTask(with: request, to: destination, options: options)
        let validation = validated(DataResponseSerializer())
        return HTTPTask(transfer: transfer, request: request, hold: hold) { _, response, file throws(NetworkingError) in
            _ = try validation.serialize(Data(), response: response, request: request)
            guard let file else {
                throw NetworkingError(.downloadMoveFailed, "the download ended without a file", request: request, response: response)
            }
            return file
        }
    }
}
