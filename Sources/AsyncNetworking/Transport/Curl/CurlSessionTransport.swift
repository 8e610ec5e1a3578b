#if os(Linux) && canImport(CCurlShim)
import Foundation
import FoundationNetworking
import Synchronization

/// The curl transport as the ``SessionManager`` sees it: one ``CurlMultiLoop`` (a thread of its own)
/// whose batches of events enter the manager's executor in **one hop per loop turn**, and the
/// translation of a transfer's next attempt into a ``CurlRequest``.
final class CurlSessionTransport: Sendable {
    let loop: CurlMultiLoop
    /// Headers every request gets unless it sets them (the configuration's `httpAdditionalHeaders`).
    let additionalHeaders: [(name: String, value: String)]
    /// The configuration's `timeoutIntervalForResource`, when shorter than URLSession's 7 days.
    let totalTimeout: Duration?
    /// The configuration's `timeoutIntervalForRequest`, used when a request keeps the default 60 s.
    let defaultIdleTimeout: TimeInterval

    /// Starts the loop thread. Events go to `deliver`, which hops onto the manager's executor.
    init(
        configuration: URLSessionConfiguration, fallback: DispatchQueue,
        deliver: @escaping @Sendable ([CurlEvent]) -> Void
    ) throws(CurlLibraryError) {
        var loopConfiguration = CurlMultiLoop.Configuration()
        loopConfiguration.maxHostConnections = max(1, configuration.httpMaximumConnectionsPerHost)
        loop = try CurlMultiLoop(configuration: loopConfiguration, fallback: fallback, handler: deliver)
        additionalHeaders = (configuration.httpAdditionalHeaders ?? [:]).compactMap { key, value in
            guard let name = key as? String else { return nil }
            return (name: name, value: "\(value)")
        }
        let resource = configuration.timeoutIntervalForResource
        totalTimeout = resource > 0 && resource < 604_800 ? .milliseconds(Int64(resource * 1000)) : nil
        defaultIdleTimeout = configuration.timeoutIntervalForRequest
    }

    /// The curl request for an attempt of `state`: its current request (with the sink's additions),
    /// the upload source, timeouts, the flow-control window, and a credential if a challenge was
    /// answered.
    func makeRequest(
        _ request: URLRequest, upload: UploadSource, fileLength: Int64, credential: URLCredential?, window: Int?,
        streamedBody: InputStream? = nil
    ) throws(NetworkingError) -> (CurlRequest, bodyStream: InputStream?) {
        guard let url = request.url else { throw NetworkingError(.invalidURL, "the request has no URL", request: request) }
        var headers = (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
        for extra in additionalHeaders where !headers.contains(where: { $0.name.caseInsensitiveCompare(extra.name) == .orderedSame }) {
            headers.append(extra)
        }
        if let credential, let user = credential.user, let password = credential.password,
           !headers.contains(where: { $0.name.caseInsensitiveCompare("Authorization") == .orderedSame }) {
            headers.append((name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()))
        }
        var stream: InputStream?
        let body: CurlRequestBody
        switch upload {
        case .none: body = request.httpBody.map { .data($0) } ?? .empty
        case .data(let data): body = .data(data)
        case .file(let fileURL): body = .file(fileURL, offset: 0, length: fileLength)
        case .stream:
            // Made by the transfer's producer for this attempt (see SessionManager.launch).
            guard let input = streamedBody else {
                throw NetworkingError(.bodyStreamNotReplayable, "no body stream for this attempt", request: request)
            }
            stream = input
            // Sent chunked, as on URLSession: a streamed body's length is only for progress.
            body = .producer(InputStreamBodyProducer(input), length: nil)
        }
        var options = CurlTransferOptions()
        let interval = request.timeoutInterval == 60 ? defaultIdleTimeout : request.timeoutInterval
        if interval > 0, interval.isFinite { options.idleTimeout = .milliseconds(Int64((interval * 1000).rounded(.up))) }
        options.totalTimeout = totalTimeout
        options.receiveWindow = window
        let method = request.httpMethod ?? (body.length.map { $0 > 0 } == true ? "POST" : "GET")
        return (CurlRequest(url: url, method: method, headers: headers, body: body, options: options), stream)
    }
}

/// One attempt of a transfer on the curl loop, with what the Session layer tracks of it.
final class CurlAttempt: PausableInPlace {
    let id: CurlTransferID
    let loop: CurlMultiLoop
    /// The running total of request-body bytes last reported (curl reports totals).
    var sentTotal: Int64 = 0
    /// The request-body length, for upload progress (`-1`: unknown).
    let bodyLength: Int64
    /// The URL the attempt asked for (the response's URL: curl follows no redirect itself).
    let url: URL
    /// Set once curl reported the attempt's completion (even while a decision held it back).
    var hasCompleted = false
    /// What the consumer had read when this attempt started (its window counts from there).
    var consumedAtStart: Int64 = 0
    /// The security policy the attempt runs under (to name what a TLS failure broke).
    var policy = SecurityPolicy.default

    init(id: CurlTransferID, loop: CurlMultiLoop, url: URL, bodyLength: Int64?) {
        self.id = id
        self.loop = loop
        self.url = url
        self.bodyLength = bodyLength ?? -1
    }

    var taskIdentifier: Int { Int(truncatingIfNeeded: id.rawValue) }

    func cancel() { loop.cancel(id) }

    func setPaused(_ paused: Bool) {
        if paused {
            loop.pauseReceiving(id)
            loop.pauseSending(id)
        } else {
            loop.resumeReceiving(id)
            loop.resumeSending(id)
        }
    }
}

/// Reads an upload's `InputStream` on the loop thread. The streams the library builds (spooled
/// files, multipart parts from disk) never wait long; a read error fails the transfer.
final class InputStreamBodyProducer: CurlBodyProducer, @unchecked Sendable {
    // reason: `InputStream` is not Sendable; only the loop thread touches it after creation.
    private let stream: InputStream
    private var opened = false

    init(_ stream: InputStream) { self.stream = stream }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> CurlBodyRead {
        if !opened {
            opened = true
            stream.open()
        }
        let count = stream.read(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
        if count > 0 { return .bytes(count) }
        if count == 0 { return .end }
        return .failed("the request body stream reported an error")
    }
}
#endif
