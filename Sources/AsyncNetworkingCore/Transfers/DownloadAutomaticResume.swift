import Foundation

/// The automatic resume of an awaited download, shared by ``SessionManager/download(for:to:options:)``
/// and the HTTP layer's awaited download.
extension DownloadOptions {
    /// Runs `attempt` with these options and, with ``resumable``, runs it again after a transport
    /// failure that left more bytes in the partial file than before, up to
    /// ``automaticResumeAttempts`` times. Any other failure (the deadline's included), a cancelled
    /// task, or a failure that added no bytes is thrown, with the number of attempts made
    /// (``NetworkingError/attemptCount``, when ``resumable``). A relative ``TransferOptions/deadline`` is fixed once,
    /// when the download starts: every attempt gets the same instant.
    package func resumingAutomatically<Output>(
        isolation: isolated (any Actor)? = #isolation,
        _ attempt: (DownloadOptions) async throws(NetworkingError) -> Output
    ) async throws(NetworkingError) -> Output {
        var options = self
        options.transfer.deadline = transfer.deadline.map { .at($0.instant(startingAt: .now)) }
        var retries = 0
        var bytesBefore: Int64 = 0
        while true {
            do {
                return try await attempt(options)
            } catch {
                guard resumable, retries < automaticResumeAttempts, !Task.isCancelled,
                      case .transport = error.kind, let partial = error.fileURL,
                      let bytesNow = TransferFiles.size(of: partial), bytesNow > bytesBefore
                else { throw resumable ? error.counting(attempts: retries + 1) : error }
                retries += 1
                bytesBefore = bytesNow
            }
        }
    }
}
