#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation

/// A request written on a kept-alive connection the server closed at that moment (its idle
/// timeout raced the request: AsyncHTTPClient #715) is sent again, once, on a fresh connection.
///
/// The rule: a transfer that ended with a connection error (`CURLE_SEND_ERROR`,
/// `CURLE_RECV_ERROR`, `CURLE_GOT_NOTHING`) on a **reused** connection (`CURLINFO_NUM_CONNECTS`
/// 0) before a single byte of a response arrived, whose body can be sent again from its start
/// (none, bytes or a file — never a stream, which is read once), is started over with
/// `CURLOPT_FRESH_CONNECT`, its body rewound. Any method: no byte of an answer came back, so
/// there is nothing a second attempt could contradict — what libcurl does itself when the
/// connection dies while it reads (but not while it still writes a body, the case this adds),
/// and what browsers do for a stale socket. A transfer on a fresh connection, one that received
/// any part of a response, or one already resent is never sent again here: that is the retry
/// policy's decision.
enum CurlStaleConnection {
    /// Connection errors a stale kept-alive connection ends a request with.
    static let codes: Set<Int32> = [ANCURLE_SEND_ERROR, ANCURLE_RECV_ERROR, ANCURLE_GOT_NOTHING]

    /// Whether `transfer`, which curl ended with `code` (after ``CurlResponseEnd`` resolved it),
    /// should be sent again on a fresh connection.
    static func shouldResend(_ transfer: CurlTransfer, code: Int32) -> Bool {
        guard codes.contains(code), transfer.staleConnectionResends == 0,
              !transfer.receivedStatusLine, transfer.lastHead == nil,
              transfer.bodyFailure == nil, transfer.headFailure == nil, transfer.request.body.isReplayable
        else { return false }
        var newConnections = 0
        guard ancurl_easy_getinfo_long(transfer.easy, ANCURLINFO_NUM_CONNECTS, &newConnections) == ANCURLE_OK else { return false }
        return newConnections == 0
    }
}

extension CurlRequestBody {
    /// Whether the body can be sent again from its start: no body, bytes or a file.
    var isReplayable: Bool {
        switch self {
        case .empty, .data, .file: true
        case .producer: false
        }
    }
}
#endif
