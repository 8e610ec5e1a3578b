import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a download's file goes (AFNetworking's `destination` block).
///
/// The body is written to a partial file first and moved into place (one atomic rename) only when
/// it is complete and the status was successful, so the destination never holds a half-written
/// file or an error page.
public enum DownloadDestination: Sendable {
    /// Exactly this file URL. Its partial file is `<file>.partial` in the same directory.
    ///
    /// Checked before anything is sent: when the file exists and ``DownloadOptions/replaceExisting``
    /// is `false`, or its directory is missing and ``DownloadOptions/createIntermediateDirectories``
    /// is `false`, the download fails with ``NetworkingError/Kind/fileWriteFailed``.
    case file(URL)

    /// A file in this directory, named after the server's suggestion: the `Content-Disposition`
    /// file name, else the last component of the URL, else `download`.
    ///
    /// The suggested name is sanitised (no separators, no `..`, no absolute path, no leading dot,
    /// no control characters), so a hostile server cannot write outside the directory. The partial
    /// file is a hidden `.asyncnetworking-<key>.partial` in the directory.
    case directory(URL)

    /// A file URL decided once the body is complete, from the response and the sanitised suggested
    /// file name. The closure runs on the manager's executor: keep it quick and non-blocking.
    ///
    /// The partial file lives in a per-user directory (`AsyncNetworking-<uid>`, mode 0700) inside
    /// ``DownloadOptions/temporaryDirectory`` and is renamed (or, across file systems, copied) to
    /// the URL returned.
    case custom(@Sendable (_ response: HTTPURLResponse, _ suggestedFilename: String) -> URL)
}

/// Options of a download to a file.
public struct DownloadOptions: Sendable {
    /// Create missing directories on the way to the destination. Default `false`: a missing
    /// directory is a ``NetworkingError/Kind/fileWriteFailed`` error (before sending for
    /// ``DownloadDestination/file(_:)`` and ``DownloadDestination/directory(_:)``).
    public var createIntermediateDirectories: Bool
    /// Replace a file already at the destination (atomically). Default `false`: an existing file is
    /// never overwritten; the download fails with ``NetworkingError/Kind/fileWriteFailed`` before
    /// sending when the destination is known in advance, else with
    /// ``NetworkingError/Kind/downloadMoveFailed`` (whose `fileURL` says where the bytes are).
    public var replaceExisting: Bool
    /// Keep what was received when the download fails or is cancelled, and continue from it next
    /// time (in this process or after a restart) with a `Range` request validated by `If-Range`.
    ///
    /// Default `false`: a failed or cancelled download deletes its partial file. When `true`, the
    /// partial file and a small resume record (`<partial>.json`) stay after a failure — the error's
    /// `fileURL` names the partial file — and the next download of the same URL to the same
    /// destination continues from them. A server that ignores the range, or whose `ETag` /
    /// `Last-Modified` changed, answers with the whole body, which then replaces the partial bytes:
    /// the result is always byte-identical to an uninterrupted download. A response without a strong
    /// `ETag` or a `Last-Modified`, or with a `Content-Encoding`, cannot be resumed.
    public var resumable: Bool
    /// With ``resumable``, how many times ``SessionManager/download(for:to:options:)`` continues by
    /// itself after a transport failure (a dropped connection, a timeout) that came after new bytes
    /// reached the disk. Default 3. Event-stream downloads never retry by themselves.
    public var automaticResumeAttempts: Int
    /// At most this many bytes of an error response's body (status not 2xx) are kept, for the
    /// error's ``NetworkingError/body``; a longer one ends the transfer there. Default 1 MiB.
    public var maxErrorBodyBytes: Int
    /// Where partial files of ``DownloadDestination/custom(_:)`` downloads go: a per-user
    /// subdirectory (`AsyncNetworking-<uid>`, mode 0700, which must not be a link nor belong to
    /// someone else) of this directory. Default `nil`: the system temporary directory.
    public var temporaryDirectory: URL?
    /// Priority, start and size limit of the transfer. Its buffer policy does not matter: a download
    /// streams to disk, never into memory. Default ``TransferOptions/default``.
    public var transfer: TransferOptions

    /// Creates options; every argument has the default described on its property.
    public init(
        createIntermediateDirectories: Bool = false,
        replaceExisting: Bool = false,
        resumable: Bool = false,
        automaticResumeAttempts: Int = 3,
        maxErrorBodyBytes: Int = 1 << 20,
        temporaryDirectory: URL? = nil,
        transfer: TransferOptions = .default
    ) {
        self.createIntermediateDirectories = createIntermediateDirectories
        self.replaceExisting = replaceExisting
        self.resumable = resumable
        self.automaticResumeAttempts = max(0, automaticResumeAttempts)
        self.maxErrorBodyBytes = max(0, maxErrorBodyBytes)
        self.temporaryDirectory = temporaryDirectory
        self.transfer = transfer
    }

    /// All defaults.
    public static let `default` = DownloadOptions()
}
