import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running client call with progress and a serialized value from one handle: AFNetworking's
/// `progress:` and `success:` blocks as an event stream and an awaited value.
///
/// ```swift
/// let upload = try await client.uploadTask(.file(movie), to: "movies", as: Receipt.self)
/// Task { for await event in upload.events { if case .uploadProgress(let p) = event { bar.update(p) } } }
/// let receipt = try await upload.value
/// ```
///
/// The transfer starts when the handle is made. ``events`` and ``value`` may be used from different
/// tasks, in any order, or not at all. Cancelling the task that awaits ``value`` or ``response``, or
/// the task iterating ``events``, cancels the transfer (and ``value`` then throws
/// ``NetworkingError/Kind/cancelled``); so does ``cancel()``, and so does dropping the handle
/// (every copy) before the transfer ends. Breaking out of the `events` loop does not cancel.
public struct HTTPTask<Output: Sendable>: Sendable {
    /// What ``HTTPTask/events`` reports.
    public enum Event: Sendable {
        /// Bytes of the request body sent so far.
        case uploadProgress(TransferProgress)
        /// The final response head, before its body.
        case response(HTTPURLResponse)
        /// Bytes of the response body received so far.
        case downloadProgress(TransferProgress)
    }

    /// The underlying transfer (its id, suspend and resume).
    public let transfer: TransferHandle
    /// Progress and the response head, in order; ends when the transfer does, whatever its
    /// outcome (the outcome is in ``value``). Progress events are coalesced when not read: the
    /// newest 64 are kept. Iterate once.
    public let events: AsyncStream<Event>
    private let outcome: Task<Result<HTTPResponse<Output>, NetworkingError>, Never>

    /// The serialized value together with the response, the body, the request and the metrics.
    ///
    /// Suspends until the transfer has ended and its body was serialized. Cancelling the calling
    /// task cancels the transfer.
    public var response: HTTPResponse<Output> {
        get async throws(NetworkingError) {
            let transfer = transfer
            let result = await withTaskCancellationHandler {
                await outcome.value
            } onCancel: {
                transfer.cancel()
            }
            return try result.get()
        }
    }

    /// The serialized value. See ``response``.
    public var value: Output {
        get async throws(NetworkingError) { try await response.value }
    }

    /// Cancels the transfer; ``value`` throws ``NetworkingError/Kind/cancelled``.
    public func cancel() {
        transfer.cancel()
    }

    /// Starts pumping `transfer`'s events: progress goes to ``events``, the body is collected and
    /// `finish` makes the result from it (the body, the response, a downloaded file's URL). The
    /// result settles `hold`, so the session-wide completion event carries it (``CompletionHold``).
    init(
        transfer: TransferHandle, request: URLRequest, hold: CompletionHold? = nil,
        finish: @escaping @Sendable (Data, HTTPURLResponse, URL?) throws(NetworkingError) -> Output
    ) {
        hold?.register(transfer.id)
        let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        continuation.onTermination = { termination in
            if case .cancelled = termination { transfer.cancel() }
        }
        self.transfer = transfer
        self.events = events
        self.outcome = Task {
            defer { continuation.finish() }
            do throws(NetworkingError) {
                let (data, response, file, metrics) = try await Self.pump(transfer, continuation)
                let value = try finish(data, response, file)
                hold?.settle(nil, value: value)
                return .success(HTTPResponse(value: value, response: response, data: data, request: request, metrics: metrics))
            } catch {
                let failure = error.adding(request: request)
                hold?.settle(failure, value: nil)
                return .failure(failure)
            }
        }
    }

    private static func pump(
        _ transfer: TransferHandle, _ continuation: AsyncStream<Event>.Continuation
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse, URL?, TransferMetrics) {
        var iterator = transfer.events.makeAsyncIterator()
        var body = Data()
        var response: HTTPURLResponse?
        var file: URL?
        do {
            while let event = try await iterator.next() {
                switch event {
                case .uploadProgress(let progress): continuation.yield(.uploadProgress(progress))
                case .downloadProgress(let progress): continuation.yield(.downloadProgress(progress))
                case .response(let head):
                    response = head
                    body = Data()
                    continuation.yield(.response(head))
                case .data(let chunk): body.append(chunk)
                case .downloaded(let url): file = url
                case .trailers: break // the trailers are in the metrics too
                case .completed(let metrics):
                    guard let response else { break }
                    return (body, response, file, metrics)
                }
            }
        } catch {
            throw error.adding(response: response, body: body.isEmpty ? nil : body)
        }
        throw NetworkingError(.transport(.badServerResponse), "the transfer ended without an HTTP response")
    }
}
