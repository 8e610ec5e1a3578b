import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DownloadDestination {
    /// A new file in the system temporary directory, named `AsyncNetworking-<UUID>-<suggested name>`:
    /// never an existing file, so two downloads never collide. The manager's default destination
    /// (``SessionManager/defaultDownloadDestination``). Deleting the file is up to you.
    public static var uniqueTemporaryFile: DownloadDestination {
        .custom { _, suggestedFilename in
            FileManager.default.temporaryDirectory
                .appendingPathComponent("AsyncNetworking-\(UUID().uuidString)-\(suggestedFilename)")
        }
    }
}

/// Downloads that name no destination go to the manager's default one.
extension SessionManager {
    /// Sets where downloads that name no destination go (AFNetworking's `destination` block given
    /// once for the manager). Applies to downloads created from now on. Pass `nil` to restore the
    /// default, ``DownloadDestination/uniqueTemporaryFile``.
    public func setDefaultDownloadDestination(_ destination: DownloadDestination?) {
        defaultDownloadDestination = destination ?? .uniqueTemporaryFile
    }

    /// Starts downloading `request` into ``defaultDownloadDestination`` and returns its handle; the
    /// file's URL arrives as ``TransferEvent/downloaded(_:)``. See ``downloadTask(with:to:options:)``.
    public func downloadTask(with request: URLRequest, options: DownloadOptions = .default) throws(NetworkingError) -> TransferHandle {
        try downloadTask(with: request, to: defaultDownloadDestination, options: options)
    }

    /// Downloads `request` into ``defaultDownloadDestination``; returns the file URL and the
    /// response. See ``download(for:to:options:)``.
    public func download(for request: URLRequest, options: DownloadOptions = .default) async throws(NetworkingError) -> (URL, HTTPURLResponse) {
        try await download(for: request, to: defaultDownloadDestination, options: options)
    }
}
