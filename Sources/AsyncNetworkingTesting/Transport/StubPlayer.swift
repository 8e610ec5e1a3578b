import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plays one stubbed attempt, as a server would answer it: reads the request body (reporting it
/// sent), records the request and asks the registry, then reports the stub's head, its body
/// (in the stub's chunks) and the completion. The rules are those of `StubURLProtocol`:
/// `Content-Length` is added when absent, a `HEAD` gets no body, an unmatched request fails with
/// ``NetworkingError/Kind/unmatchedStub``.
struct StubPlayer: Sendable {
    /// The request as the Session layer built it (no body stream: see ``body``).
    let request: URLRequest
    /// The request body, read (and reported sent) before the registry is asked.
    let body: StubUploadBody
    /// The registry, or `nil` once released.
    let stubs: HTTPStubs?

    /// Request bodies are read and reported sent in pieces of this many bytes.
    static let sendPiece = 64 << 10

    /// Plays the answer to `attempt`; returns once it completed or was cancelled.
    func play(to attempt: StubAttempt) async {
        guard let sentBody = readBody(reportingTo: attempt) else { return }
        var recordedRequest = request
        recordedRequest.httpBody = sentBody
        let recorded = StubRequest(urlRequest: recordedRequest, body: sentBody)
        let method = recorded.method.rawValue
        let target = Redaction.url(recorded.url)
        guard let stubs else {
            return attempt.complete(NetworkingError(.unmatchedStub, "\(method) \(target): the HTTPStubs of this manager were released", request: request))
        }
        guard let handler = stubs.handler(for: recorded) else {
            return attempt.complete(NetworkingError(.unmatchedStub, "no stub matches \(method) \(target)", request: request))
        }
        let response: StubResponse
        do {
            response = try await handler(recorded)
        } catch {
            return attempt.complete(error)
        }
        do {
            if response.delay > .zero { try await Task.sleep(for: response.delay) }
            if let error = response.error { return attempt.complete(error) }
            guard let head = Self.head(of: response, url: recorded.url) else {
                return attempt.complete(NetworkingError(
                    .transport(.badServerResponse), "invalid response head: the stub's status or fields break RFC 9110", request: request
                ))
            }
            await attempt.waitWhilePaused()
            guard attempt.send(.head(head)) else { return }
            let body = recorded.method == .head ? Data() : response.body
            let size = response.chunkSize ?? max(1, body.count)
            var offset = 0
            while offset < body.count {
                if offset > 0, response.chunkInterval > .zero { try await Task.sleep(for: response.chunkInterval) }
                await attempt.waitWhilePaused()
                try Task.checkCancellation()
                let piece = body.subdata(in: offset..<min(body.count, offset + size))
                offset += piece.count
                guard attempt.send(.body(piece)) else { return }
            }
            attempt.complete()
        } catch {
            // Cancelled: `StubAttempt.cancel()` already reported the completion.
        }
    }

    /// The head a server would send for `response` (fields in name order, `Content-Length` added
    /// when absent), or `nil` when its status or a field breaks the rules curl applies to a
    /// server's head.
    static func head(of response: StubResponse, url: URL) -> ResponseHead? {
        guard (100...999).contains(response.statusCode) else { return nil }
        var fields = response.headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { (name: $0.key, value: $0.value) }
        for field in fields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(ResponseHeadValidation.isTokenByte),
                  field.value.utf8.allSatisfy(ResponseHeadValidation.isFieldValueByte) else { return nil }
        }
        if !fields.contains(where: { ResponseHead.sameName($0.name, "Content-Length") }) {
            fields.append((name: "Content-Length", value: String(response.body.count)))
        }
        var head = ResponseHead(
            statusCode: response.statusCode, httpVersion: "HTTP/1.1",
            reasonPhrase: HTTPURLResponse.localizedString(forStatusCode: response.statusCode), fields: fields
        )
        head.url = url
        return head
    }

    /// Reads the whole request body, reporting each piece sent.
    /// - Returns: the body (`nil` inside when the request has none), or `nil` when the attempt
    ///   ended meanwhile (cancelled, or the body could not be read: the failure was reported).
    private func readBody(reportingTo attempt: StubAttempt) -> Data?? {
        let expected = body.expectedLength
        var read = Data()
        /// Reports `piece` sent; `false` when the attempt ended.
        func sent(_ piece: Data) -> Bool {
            read.append(piece)
            guard !Task.isCancelled else { return false }
            return piece.isEmpty || attempt.send(.sent(bytes: Int64(piece.count), totalExpected: expected))
        }
        switch body {
        case .none:
            return .some(nil)
        case .data(let data):
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + Self.sendPiece)
                guard sent(data.subdata(in: offset..<end)) else { return nil }
                offset = end
            }
            return read
        case .file(let url, let length):
            guard let handle = try? FileHandle(forReadingFrom: url) else {
                return fileFailed(url, attempt: attempt)
            }
            defer { try? handle.close() }
            while Int64(read.count) < length {
                let want = Int(min(Int64(Self.sendPiece), length - Int64(read.count)))
                guard let piece = try? handle.read(upToCount: want), !piece.isEmpty else {
                    return fileFailed(url, attempt: attempt)
                }
                guard sent(piece) else { return nil }
            }
            return read
        case .stream(let box, _):
            let stream = box.stream
            stream.open()
            defer { stream.close() }
            var buffer = [UInt8](repeating: 0, count: Self.sendPiece)
            while true {
                let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: $0.count) }
                if count == 0 { break }
                guard count > 0 else {
                    // The manager reads why from the stream's status once the attempt completed.
                    attempt.complete(NetworkingError(.fileReadFailed, "the request body stream reported an error", request: request))
                    return nil
                }
                guard sent(Data(buffer[0..<count])) else { return nil }
            }
            return read
        }
    }

    /// Completes the attempt: the file could not be read to its end.
    private func fileFailed(_ url: URL, attempt: StubAttempt) -> Data?? {
        let failure = NetworkingError(
            .fileReadFailed, "\(url.path) could not be read to its end: it changed or vanished while being sent",
            request: request, fileURL: url
        )
        attempt.complete(URLError(.cannotOpenFile), bodyReadFailure: failure)
        return nil
    }
}
