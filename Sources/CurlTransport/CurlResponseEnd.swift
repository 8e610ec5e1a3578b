#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation

/// **The rule:** a complete response is the outcome, whatever the state of the request body.
///
/// libcurl 7.88 ends a transfer when both directions are done. A server may answer a request —
/// `2xx` or not, with a `Content-Length`, chunked, or with no body by definition — before its
/// body was all sent (a duplex exchange, an early `413`, a `307` to a large upload): libcurl then
/// stops reading, but keeps the transfer open for the body, and a body producer with nothing to
/// give (paused) keeps it open for ever. So the transfer tracks where the current final
/// response's body ends (``BodyEnd``) and notes when it has ended (``CurlTransfer/responseEnded``);
/// the loop then ends a transfer that still sends: the request body is stopped (RFC 9112 §9.3 —
/// libcurl closes an HTTP/1.1 connection whose request it did not finish; an HTTP/2 stream is
/// reset) and the response is the outcome. The same knowledge makes a send failure after a
/// complete response (the server answered and closed, ``CurlEarlyResponse``) and a failure in a
/// chunked body's trailer section (the body was complete) not failures of the response.
///
/// How the end is known, per ``BodyEnd``:
/// - no body (a `HEAD`, `204`, `304`): at the head;
/// - `Content-Length`: once that many body bytes arrived (counted before content decoding);
/// - chunked (HTTP/1.1): libcurl's raw body bytes, with `CURLOPT_VERBOSE` on from the head on
///   (`CURLINFO_DATA_IN` is passed on before libcurl removes the framing), followed by a
///   ``CurlChunkedFraming``;
/// - the connection's end (HTTP/1.x without a length): libcurl reports it in its verbose text
///   ("we are done reading and this is set to close, stop send") and stops sending by itself; the
///   loop then resumes the paused send side so that libcurl can finish the transfer;
/// - the stream's end (HTTP/2 without `content-length`): libcurl 7.88 reports nothing while the
///   request body is open, so such a response ends with the request body (or the idle timeout).
enum CurlResponseEnd {
    /// How the end of a response body is known.
    enum BodyEnd: Sendable, Hashable {
        case noBody
        case length(Int64)
        case chunked
        case connectionClose
        case streamEnd
    }

    /// How the body of `head`, answering `method`, ends (RFC 9112 §6.3, RFC 9113 §8.1).
    static func bodyEnd(of head: ResponseHead, method: String) -> BodyEnd {
        let status = head.statusCode
        if method.uppercased() == "HEAD" || status < 200 || status == 204 || status == 304 { return .noBody }
        let http1 = head.httpVersion.hasPrefix("HTTP/1")
        if http1, let codings = head.value(of: "Transfer-Encoding"), !codings.isEmpty {
            let last = codings.split(separator: ",").last?.trimmingCharacters(in: .whitespaces).lowercased()
            return last == "chunked" ? .chunked : .connectionClose
        }
        if let length = head.contentLength { return .length(length) }
        return http1 ? .connectionClose : .streamEnd
    }

    /// libcurl's verbose line when it stops sending because the response ended with the connection.
    static let doneReadingText = "we are done reading and this is set to close, stop send"

    /// The code a transfer that libcurl ended with `curlCode` (0 when the loop ended it with its
    /// complete response) is reported with.
    static func code(of transfer: CurlTransfer, curlCode: Int32) -> Int32 {
        // A body that could not be read aborts from the read callback, an invalid response
        // head from the header callback; report why.
        var code = transfer.bodyFailure != nil ? ANCURLE_READ_ERROR
            : transfer.headFailure != nil ? ANCURLE_WEIRD_SERVER_REPLY : curlCode
        // A complete response that arrived while the body was still being sent is the outcome
        // (see CurlEarlyResponse), and so is a chunked body whose last chunk arrived before
        // libcurl failed in its trailer section (see CurlResponseEnd): never a lost response.
        code = CurlEarlyResponse.resolve(transfer, code: code)
        if code != 0, transfer.bodyFailure == nil, transfer.headFailure == nil, transfer.chunkedBodyEnded {
            transfer.acceptTrailerSectionFailure()
            code = 0
        }
        // An encoded body that was invalid, or ended before its encoded stream did.
        if transfer.bodyFailure == nil, transfer.headFailure == nil,
           transfer.decodeFailure != nil || (code == 0 && transfer.decoding?.truncation != nil) {
            if transfer.decodeFailure == nil { transfer.decodeFailure = transfer.decoding?.truncation }
            code = ANCURLE_BAD_CONTENT_ENCODING
        }
        return code
    }
}

extension CurlTransfer {
    /// Starts following the end of `head`'s body (called for each final head).
    ///
    /// A `3xx`–`5xx` answering a request with a body also keeps the HTTP/1.x connection from being
    /// reused (an HTTP/2 stream's framing is its own):
    /// the server may not have read the body (it answered without it: an early `307`, `413`,
    /// `401`) and may never read it, so a request sent next on that connection — the redirect's
    /// re-send, the credential retry — would wait behind it for ever. libcurl closes such a
    /// connection itself when the answer arrives mid-send; not when the whole body fit into the
    /// socket buffers first.
    func beginTrackingBodyEnd(of head: ResponseHead) {
        if head.statusCode >= 300, request.body.isPresent, head.httpVersion.hasPrefix("HTTP/1") {
            _ = ancurl_easy_setopt_long(easy, ANCURLOPT_FORBID_REUSE, 1)
        }
        bodyEnd = CurlResponseEnd.bodyEnd(of: head, method: request.method)
        wireBytesReceived = 0
        chunkedFraming = nil
        responseEnded = false
        switch bodyEnd {
        case .noBody:
            noteResponseEnded()
        case .length(let length):
            if length == 0 { noteResponseEnded() }
        case .chunked:
            chunkedFraming = CurlChunkedFraming()
            setVerbose(true)
        case .connectionClose:
            // Only a body still being sent needs libcurl's word on the end.
            if request.body.isPresent { setVerbose(true) }
        case .streamEnd:
            break
        }
    }

    /// Counts `count` body bytes as they arrived (before content decoding).
    func countWireBytes(_ count: Int) {
        wireBytesReceived += Int64(count)
        if case .length(let length) = bodyEnd, wireBytesReceived >= length { noteResponseEnded() }
    }

    /// `CURLOPT_DEBUGFUNCTION`, while verbose: raw body bytes and libcurl's text.
    func didDebug(type: Int32, _ data: UnsafeMutablePointer<CChar>?, count: Int) {
        guard let data, count > 0 else { return }
        switch type {
        case ANCURLINFO_DATA_IN:
            guard var framing = chunkedFraming else { return }
            framing.consume(UnsafeRawBufferPointer(start: data, count: count))
            chunkedFraming = framing
            if framing.isComplete { noteResponseEnded() }
            if framing.isComplete || framing.isInvalid { setVerbose(false) }
        case ANCURLINFO_TEXT:
            guard case .connectionClose = bodyEnd, count >= CurlResponseEnd.doneReadingText.utf8.count else { return }
            let text = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
            if text.hasPrefix(CurlResponseEnd.doneReadingText) {
                noteResponseEnded()
                setVerbose(false)
            }
        default:
            break
        }
    }

    /// Whether the last chunk of a chunked body arrived: anything after it is the trailer section.
    var chunkedBodyEnded: Bool { chunkedFraming?.lastChunkSeen ?? false }

    /// libcurl failed in the trailer section of a complete chunked body (a line it refuses: no
    /// colon, a bare CR, longer than its 4 KiB trailer buffer; or the connection's end): the
    /// response stands, with the trailers before that line — never one libcurl cut at a bare CR.
    func acceptTrailerSectionFailure() {
        if chunkedFraming?.sawBareCRInTrailers == true { dropLastTrailerLine() }
        errorBuffer[0] = 0
    }

    /// Whether the transfer can end now as its complete response: every byte of it was handed
    /// over (nothing held by libcurl for a paused receive side, nothing left in the decoder).
    var canEndWithResponse: Bool {
        responseEnded && !flow.isReceivingPaused && decoding?.hasPending != true
    }

    private func noteResponseEnded() {
        guard !responseEnded else { return }
        responseEnded = true
        // Only a request body can hold a transfer open after its response (CurlLoopCore ends it).
        if request.body.isPresent { core.noteResponseEnded(self) }
    }

    private func setVerbose(_ on: Bool) {
        guard verbose != on else { return }
        verbose = on
        _ = ancurl_easy_setopt_long(easy, ANCURLOPT_VERBOSE, on ? 1 : 0)
    }
}

extension CurlCallbacks {
    /// `CURLOPT_DEBUGFUNCTION`; `userdata` is the `CurlTransfer`, unretained.
    static let debug: ancurl_debug_callback = { _, type, data, size, userdata in
        Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue().didDebug(type: type, data, count: size)
        return 0
    }
}

extension CurlRequestBody {
    /// Whether the request sends a body (possibly empty).
    var isPresent: Bool {
        if case .empty = self { return false }
        return true
    }
}
#endif
