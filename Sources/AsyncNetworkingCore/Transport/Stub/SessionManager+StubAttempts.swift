import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The core's side of the stubs transport: starting attempts from a transfer's state, and the
/// manager as the sink of the attempts' events.
extension SessionManager: AttemptEventSink {
    /// Starts the next attempt of `state` on the stubs transport: the request as built by the
    /// Session layer, with the transfer's upload (a streamed upload's stream made by `launch`).
    func startStubAttempt(_ state: TransferState, request: URLRequest, fileLength: Int64, on stubs: StubTransport) -> StubAttempt {
        let body: StubUploadBody
        switch state.upload {
        case .none: body = request.httpBody.map { .data($0) } ?? .none
        case .data(let data): body = .data(data)
        case .file(let url): body = .file(url, length: fileLength)
        case .stream(let streamed):
            // `launch` made this attempt's stream just before; reading an empty one never happens.
            let stream = state.takePendingBodyStream() ?? InputStream(data: Data())
            state.bodyStream = stream
            body = .stream(StubBodyStream(stream), length: streamed.length)
        case .sequence:
            // Never here: a sequence body is spooled to a file for stubs (see
            // `SessionManager.uploadSource(for:request:)`).
            body = .none
        }
        var sent = request
        sent.httpBodyStream = nil
        return stubs.start(sent, body: body)
    }

    /// Enqueues a stubbed attempt's event on the manager's executor (``AttemptEventSink``).
    package nonisolated func enqueue(_ event: AttemptEvent, of id: AttemptID) {
        perform { $0.attempt(id, didReport: event) }
    }

    /// After invalidation, reports the session invalid once no stubbed attempt runs.
    func completeStubInvalidationIfIdle() {
        guard case .stubs = engine, lifecycle == .finishing || lifecycle == .cancelling,
              transfersByAttempt.isEmpty, !transfers.values.contains(where: { $0.phase == .running })
        else { return }
        delegateQueue.bypassing { underlyingSession.invalidateAndCancel() }
        sessionDidBecomeInvalid()
    }
}
