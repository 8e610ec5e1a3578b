import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The end of a download: move the complete file into place, or clean up (or keep, when resumable)
/// the partial file, then tell the caller.
extension DownloadSink {
    func didFinish(_ result: Result<TransferMetrics, NetworkingError>, for transfer: TransferState) -> FinishOutcome {
        switch result {
        case .success(let metrics):
            if let (response, body) = rejectedResponse {
                return fail(statusError(response, body: body, transfer: transfer), transfer)
            }
            guard let response else {
                return fail(NetworkingError(
                    .transport(.badServerResponse), "the download ended without a response", request: transfer.originalRequest
                ), transfer)
            }
            if let total = expectedLength, bytesOnDisk != total {
                return fail(NetworkingError(
                    .transport(.networkConnectionLost), "the body ended after \(bytesOnDisk) of \(total) bytes",
                    request: transfer.originalRequest, response: response
                ), transfer)
            }
            return finish(response, metrics, transfer)
        case .failure(let error):
            return fail(error, transfer)
        }
    }

    /// Moves the complete partial file to its destination and reports it.
    private func finish(_ response: HTTPURLResponse, _ metrics: TransferMetrics, _ transfer: TransferState) -> FinishOutcome {
        let options = plan.options
        let source = plan.partialURL
        let recordURL = plan.recordURL
        let placed: Result<(URL, FileMove.Outcome), NetworkingError> = Result { () throws(NetworkingError) in
            let target = try plan.finalURL(for: response)
            if options.createIntermediateDirectories {
                try TransferFiles.prepareDirectory(target.deletingLastPathComponent(), create: true, request: transfer.originalRequest)
            }
            return (target, try FileMove.move(source, to: target, replacing: options.replaceExisting))
        }
        let target: URL, outcome: FileMove.Outcome
        switch placed {
        case .success(let placement): (target, outcome) = placement
        case .failure(let error): return keepCompleteFile(error, transfer)
        }
        partialFile.close()
        let output = output
        let request = transfer.originalRequest
        switch outcome {
        case .moved:
            placedFileURL = target
            TransferFiles.remove(recordURL)
            return Self.deliver(.success((target, response, metrics)), to: output)
        case .needsCopy:
            // A copy between file systems can take long: never on the manager's executor.
            let replacing = options.replaceExisting
            let report = reportLater
            let id = transfer.id
            Task.detached {
                let error = DownloadSink.copy(source, to: target, replacing: replacing, recordURL: recordURL,
                                              response: response, request: request)
                // The session event is scheduled before the caller is told (so it precedes any
                // invalidation the caller asks for next).
                report?(TransferCompletion(
                    id: id, kind: .download, originalRequest: request, response: error?.response ?? response,
                    fileURL: error == nil ? target : nil, error: error, metrics: metrics
                ))
                _ = DownloadSink.deliver(error.map { .failure($0) } ?? .success((target, response, metrics)), to: output)
            }
            return .later
        }
    }

    /// Copies a finished download across file systems (blocking); the error, if it failed.
    private static func copy(
        _ source: URL, to target: URL, replacing: Bool, recordURL: URL, response: HTTPURLResponse, request: URLRequest
    ) -> NetworkingError? {
        do {
            try FileMove.copyAcrossFileSystems(source, to: target, replacing: replacing)
            TransferFiles.remove(recordURL)
            return nil
        } catch {
            return error.adding(request: request, response: response)
        }
    }

    /// The body is complete but could not be put in place: keep it and say where it is.
    private func keepCompleteFile(_ error: NetworkingError, _ transfer: TransferState) -> FinishOutcome {
        partialFile.close()
        if !plan.options.resumable { TransferFiles.remove(plan.recordURL) }
        let error = Self.error(error, fileURL: plan.partialURL).adding(request: transfer.originalRequest, response: response)
        return Self.deliver(.failure(error), to: output)
    }

    /// The download failed: keep the partial file for a later resume when that is possible and
    /// wanted, else delete it.
    private func fail(_ error: NetworkingError, _ transfer: TransferState) -> FinishOutcome {
        var error = error.adding(request: transfer.originalRequest)
        if plan.options.resumable, hasValidator, bytesOnDisk > 0, Self.worthKeeping(after: error) {
            partialFile.close()
            error = Self.error(error, fileURL: plan.partialURL)
        } else {
            partialFile.remove()
            TransferFiles.remove(plan.recordURL)
        }
        return Self.deliver(.failure(error), to: output)
    }

    /// The transfer was never registered: keep bytes from an earlier attempt of a resumable
    /// download, else delete the partial file. The output is not told (the caller throws).
    func abandon() {
        if plan.options.resumable && bytesOnDisk > 0 {
            partialFile.close()
        } else {
            partialFile.remove()
            TransferFiles.remove(plan.recordURL)
        }
    }

    /// A client error (other than 408 and 429) means the resource is gone or refused: its partial
    /// bytes are of no further use.
    private static func worthKeeping(after error: NetworkingError) -> Bool {
        guard case .unacceptableStatusCode(let status) = error.kind else { return true }
        return !(400..<500).contains(status) || status == 408 || status == 429
    }

    private static func error(_ error: NetworkingError, fileURL: URL) -> NetworkingError {
        NetworkingError(
            error.kind, error.message, request: error.request, response: error.response, body: error.body,
            underlyingError: error.underlyingError, fileURL: error.fileURL ?? fileURL
        )
    }

    @discardableResult
    private static func deliver(_ result: Result<(URL, HTTPURLResponse, TransferMetrics), NetworkingError>, to output: Output) -> FinishOutcome {
        switch (output, result) {
        case (.events(let channel), .success(let (url, _, metrics))):
            channel.send(.downloaded(url))
            channel.finish(metrics)
        case (.events(let channel), .failure(let error)):
            channel.fail(error)
        case (.awaiting(let continuation), .success(let (url, response, _))):
            continuation.resume(returning: (url, response))
        case (.awaiting(let continuation), .failure(let error)):
            continuation.resume(throwing: error)
        }
        switch result {
        case .success: return .now(nil)
        case .failure(let error): return .now(error)
        }
    }
}
