import Foundation

/// The automatic resume of an awaited download, shared by ``SessionManager/download(for:to:options:)``
/// and the HTTP layer's awaited download.
extension DownloadOptions {
    /// Runs `attempt` and, with ``resumable``, runs it again after a transport failure that left more
    /// bytes in the partial file than before, up to ``automaticResumeAttempts`` times. Any other
    /// failure, a cancelled task, or a failure that added no bytes is thrown as it is.
    package func resumingAutomatically<Output>(
        isolation: isolated (any Actor)? = #isolation,
        _ attempt: () async throws(NetworkingError) -> Output
    ) async throws(NetworkingError) -> Output {
        var retries = 0
        var bytesBefore: Int64 = 0
        while true {
            do {
                return try await attempt()
            } catch {
                guard resumable, retries < automaticResumeAttempts, !Task.isCancelled,
                      case .transport = error.kind, let partial = error.fileURL,
                      let bytesNow = TransferFiles.size(of: partial), bytesNow > bytesBefore
                else { throw error }
                retries += 1
                bytesBefore = bytesNow
            }
        }
    }
}
