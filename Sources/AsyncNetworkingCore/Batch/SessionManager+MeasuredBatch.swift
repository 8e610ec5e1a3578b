import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A body, its response and the transfer's metrics: one member of a measured batch
/// (``SessionManager/measuredData(for:width:options:)``).
public struct MeasuredResponse: Sendable {
    /// The whole body.
    public let data: Data
    /// The final response.
    public let response: HTTPURLResponse
    /// The transfer's timings and byte counts, with ``TransferMetrics/connection`` on curl
    /// (local and remote address and port, ``ConnectionMetrics/connectionIdentifier``).
    public let metrics: TransferMetrics

    /// Creates a value.
    public init(data: Data, response: HTTPURLResponse, metrics: TransferMetrics) {
        self.data = data
        self.response = response
        self.metrics = metrics
    }
}

/// Batches that keep each member's metrics: the batch calls of ``data(for:width:options:progress:)``
/// return `(Data, HTTPURLResponse)` tuples, which cannot carry them.
extension SessionManager {
    /// Loads `request` like ``data(for:options:)`` and returns the body, the response and the metrics.
    public nonisolated func measuredData(for request: URLRequest, options: TransferOptions = .default) async throws(NetworkingError) -> MeasuredResponse {
        if Task.isCancelled {
            throw NetworkingError(.cancelled, "the calling task was already cancelled", request: request)
        }
        let handle = try await dataTask(with: request, options: options)
        var body = Data()
        var response: HTTPURLResponse?
        var metrics: TransferMetrics?
        do {
            for try await event in handle.events {
                switch event {
                case .response(let head):
                    response = head
                    body = Data() // a replacing response starts the body again
                case .data(let chunk): body.append(chunk)
                case .completed(let value): metrics = value
                default: break
                }
            }
        } catch {
            handle.cancel()
            throw error
        }
        guard let response, let metrics else {
            throw NetworkingError(.transport(.badServerResponse), "the transfer ended without a response", request: request)
        }
        return MeasuredResponse(data: body, response: response, metrics: metrics)
    }

    /// ``data(for:width:options:progress:)`` with each member's metrics: fails fast, results in the
    /// order of `requests`. Members read their transfers' events (not the collecting path).
    public nonisolated func measuredData(
        for requests: some Collection<URLRequest> & Sendable,
        width: Int = SessionManager.defaultBatchWidth,
        options: TransferOptions = .default
    ) async throws(NetworkingError) -> [MeasuredResponse] {
        let runner = BatchRunner(inputs: Array(requests), width: width) { _, request throws(NetworkingError) in
            try await self.measuredData(for: request, options: options)
        }
        return try await runner.collectFailingFast(notStarted: Self.notStartedError)
    }

    /// ``settledData(for:width:options:progress:)`` with each member's metrics: every outcome, in
    /// the order of `requests`. Never throws.
    public nonisolated func settledMeasuredData(
        for requests: some Collection<URLRequest> & Sendable,
        width: Int = SessionManager.defaultBatchWidth,
        options: TransferOptions = .default
    ) async -> [Result<MeasuredResponse, NetworkingError>] {
        let runner = BatchRunner(inputs: Array(requests), width: width) { _, request throws(NetworkingError) in
            try await self.measuredData(for: request, options: options)
        }
        return await runner.collectSettled(notStarted: Self.notStartedError)
    }
}
