#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation

/// A response that arrives while the request body is still being sent (loop thread).
///
/// **The rule:** a complete response head received while the request body is still being sent is
/// the response, as curl's own command-line tool treats it. A server that answers a large upload
/// at once — `307`/`308`, `413`, `401`, even `200` — and closes without reading the body makes
/// curl's next write fail (`EPIPE`, `ECONNRESET`: `CURLE_SEND_ERROR`, or `CURLE_RECV_ERROR`);
/// that failure is not the outcome:
///
/// - When curl had read the head, the transfer ends as that response, provided its body is
///   complete (``CurlTransfer/responseEnded``: its `Content-Length` arrived, a chunked body's last
///   chunk did, it has none by definition), it ends with the connection, or it is a redirect,
///   whose body is never delivered. A redirect's re-send then goes out on a new connection: curl
///   closed the failed one. (Most of the time the loop has already ended such a transfer when
///   its response was complete, before any send could fail: ``CurlResponseEnd``.)
/// - When the write failed before curl read anything, the answer is still in the socket's receive
///   buffer as curl closes it: for cleartext `http` the connection is armed when the body starts,
///   and the close callback reads what is pending (`ancurl_drain_*`, at most 64 KiB) so the head (and
///   the body that came with it) is parsed here. Over TLS those bytes cannot be decrypted after
///   curl freed its session, so a send is never allowed to fail that way there: a write guard
///   (``guardTLSWrites(of:)``) takes a write that fails with `EPIPE` or `ECONNRESET` as the end of
///   the body, and libcurl reads the answer as it would any other.
enum CurlEarlyResponse {
    /// `CURLcode`s of a send that failed because the server stopped listening: GOT_NOTHING,
    /// SEND_ERROR, RECV_ERROR.
    static let sendFailureCodes: Set<Int32> = [52, 55, 56]

    /// Redirect statuses: their body is dropped when followed.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Installs the close callback on a cleartext transfer that sends a body, and the
    /// `CURLOPT_PREREQFUNCTION` that tells its connection's local port (libcurl 7.80; on an older
    /// libcurl only an answer curl read itself is kept).
    static func install(on transfer: CurlTransfer) throws(CurlConfigurationError) {
        guard transfer.request.url.scheme?.lowercased() == "http" else { return }
        let easy = transfer.easy
        guard ancurl_easy_setopt_prereq(easy, CurlCallbacks.prereq) == ANCURLE_OK else { return }
        try CurlEasyConfiguration.set(easy, ANCURLOPT_PREREQDATA, pointer: Unmanaged.passUnretained(transfer).toOpaque())
        try CurlEasyConfiguration.check(ancurl_drain_install(easy), "CLOSESOCKETFUNCTION")
    }

    /// Over TLS, before a request with a body is sent (`CURLOPT_PREREQFUNCTION`): puts the write
    /// guard on the connection (`ANTLSWriteGuard.c`), so that a send failing because the server
    /// answered and reset the connection ends the body instead of the transfer, and libcurl goes
    /// on to read (and decrypt) the answer. Returns `false` — the transfer starts over on a new
    /// connection, nothing was sent — when the connection offered is one whose writes already
    /// failed that way (it is dead; it is closed when this attempt ends).
    static func guardTLSWrites(of transfer: CurlTransfer) -> Bool {
        guard transfer.request.body.isPresent, transfer.request.url.scheme?.lowercased() == "https" else { return true }
        guard ancurl_tls_write_guard_install(transfer.easy) < 0 else { return true }
        _ = ancurl_easy_setopt_long(transfer.easy, ANCURLOPT_FORBID_REUSE, 1)
        guard transfer.restartsForTrust == 0 else { return true } // once only: then it fails as it would have
        transfer.wantsFreshConnection = true
        return false
    }

    /// Arms the transfer's connection when its body starts (the first read callback).
    static func arm(_ transfer: CurlTransfer) {
        let port = transfer.request.url.scheme?.lowercased() == "http" ? transfer.localPort : -1
        transfer.earlyResponsePort = port
        if port > 0 { ancurl_drain_arm(port) }
    }

    /// Disarms the transfer's connection (whatever was drained is dropped).
    static func disarm(_ transfer: CurlTransfer) {
        guard let port = transfer.earlyResponsePort, port > 0 else { return }
        transfer.earlyResponsePort = -1
        _ = ancurl_drain_take(port, nil, 0)
    }

    /// The code to report for a transfer curl ended with `code`: 0 when the rule above makes a
    /// response received while sending the outcome, else `code`.
    static func resolve(_ transfer: CurlTransfer, code: Int32) -> Int32 {
        guard sendFailureCodes.contains(code), transfer.request.body.isPresent else { return code }
        if transfer.lastHead == nil, let port = transfer.earlyResponsePort, port > 0 {
            transfer.earlyResponsePort = -1
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            let count = buffer.withUnsafeMutableBytes { ancurl_drain_take(port, $0.baseAddress, $0.count) }
            if let (lines, body) = split(buffer[..<count]) {
                transfer.replayDrained(lines: lines, body: body)
            }
        }
        guard let head = transfer.lastHead, transfer.responseEnded || endsWithoutItsBody(head) else { return code }
        transfer.errorBuffer[0] = 0
        return 0
    }

    /// Whether `head` is the outcome even though its body may not have been read: a redirect
    /// (its body is never delivered; the re-send follows), or a body delimited by the connection's
    /// end, which the failed send has brought. Every other body must have been read to its end
    /// (``CurlTransfer/responseEnded``: a `Content-Length` counted, a chunked body's last chunk).
    static func endsWithoutItsBody(_ head: ResponseHead) -> Bool {
        if redirectStatuses.contains(head.statusCode), head.value(of: "Location") != nil { return true }
        if head.httpVersion.hasPrefix("HTTP/1"), CurlResponseEnd.bodyEnd(of: head, method: "GET") == .connectionClose,
           head.value(of: "Transfer-Encoding") == nil {
            return true // ends with the connection
        }
        return false
    }

    /// Splits drained bytes into the head's lines (each with its CRLF) and the bytes after the
    /// blank line, or `nil` when they do not start with a complete HTTP/1.x head.
    static func split<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> (lines: [String], body: Data)? {
        let all = Array(bytes)
        guard all.starts(with: Array("HTTP/1.".utf8)) else { return nil }
        var lines: [String] = []
        var start = 0
        var index = 0
        while index < all.count {
            guard all[index] == 10 else { index += 1; continue } // LF (a bare LF ends a line too)
            let line = String(decoding: all[start...index], as: UTF8.self)
            lines.append(line)
            index += 1
            start = index
            if line == "\r\n" || line == "\n" { return (lines, Data(all[index...])) }
        }
        return nil
    }
}
#endif
