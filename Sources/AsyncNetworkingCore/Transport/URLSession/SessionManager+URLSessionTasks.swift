import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Creating the URLSession task for a transfer's next attempt.
extension SessionManager {
    /// The URLSession task for the transfer's next attempt (call inside the delegate queue's
    /// `bypassing`).
    ///
    /// - Parameter fileLength: a file upload's length, measured by ``launch(_:)`` when it checked
    ///   that the file is still there.
    func makeTask(for state: TransferState, request: URLRequest, fileLength: Int64) -> URLSessionTask {
        var request = request
        // FoundationNetworking traps converting a huge or infinite timeout (`Int(seconds) * 1000`).
        // Assigned only when it changes: an assigned timeout hides the configuration's.
        let timeout = SafeTime.foundationTimeout(request.timeoutInterval, fallback: 60)
        if timeout != request.timeoutInterval { request.timeoutInterval = timeout }
        let task = makeUntaggedTask(for: state, request: request, fileLength: fileLength)
        // Stubs (`SessionManager(stubs:)`): the URLProtocol finds its registry through this.
        task.taskDescription = underlyingSession.sessionDescription
        return task
    }

    private func makeUntaggedTask(for state: TransferState, request: URLRequest, fileLength: Int64) -> URLSessionTask {
        switch state.upload {
        case .none:
            return underlyingSession.dataTask(with: request)
        case .data(let body) where HTTPStubs.isStubbed(underlyingSession):
            // A URLProtocol cannot see an upload task's body on Linux: stubs get it in the request.
            var withBody = request
            withBody.httpBody = body
            return underlyingSession.dataTask(with: withBody)
        case .data(let body):
            return underlyingSession.uploadTask(with: request, from: body)
        case .file(let url):
            #if canImport(FoundationNetworking)
            // Sent as a body stream with its true Content-Length, not as a file: see FileBodyReader.
            let length = fileLength
            var streamed = request
            streamed.httpBody = nil
            streamed.setValue(String(length), forHTTPHeaderField: "Content-Length")
            // A blank value makes libcurl drop its `Transfer-Encoding: chunked`: the body goes out
            // as is, framed by the Content-Length above.
            streamed.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
            return streamedTask(streamed, body: BodyInputStream(reader: FileBodyReader(url: url, length: length)), for: state)
            #else
            return underlyingSession.uploadTask(with: request, fromFile: url)
            #endif
        case .stream:
            // A data task with `httpBodyStream` reads the stream as it sends (always chunked on Linux).
            // `launch` made this attempt's stream just before (it fails the transfer when the
            // producer cannot make one), so the empty fallback is never sent.
            return streamedTask(request, body: state.takePendingBodyStream() ?? InputStream(data: Data()), for: state)
        case .sequence:
            // Never here: a sequence body is spooled to a file for URLSession (see
            // `SessionManager.uploadSource(for:request:)`); an empty stream is the safe answer.
            return streamedTask(request, body: InputStream(data: Data()), for: state)
        }
    }

    private func streamedTask(_ request: URLRequest, body stream: InputStream, for state: TransferState) -> URLSessionTask {
        var streamed = request
        streamed.httpBody = nil
        streamed.httpBodyStream = stream
        state.bodyStream = stream
        return underlyingSession.dataTask(with: streamed)
    }
}
