import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Maps libcurl's `CURLcode`s to the `URLError.Code`s the rest of the library already speaks
/// (`NetworkingError.Kind.transport`). A pure function; the numbers are libcurl's (curl.h).
enum CurlErrorMapping {
    /// The `URLError.Code` for a failed transfer's `CURLcode`, or `nil` for 0 (success).
    ///
    /// `CURLE_ABORTED_BY_CALLBACK` (a cancel) and `CURLE_WRITE_ERROR` (the write callback refused
    /// data, which this layer only does to abort) map to `.cancelled`. Codes with no closer
    /// equivalent map to `.unknown`; the completion's message keeps curl's own words.
    static func urlErrorCode(for code: Int32) -> URLError.Code? {
        switch code {
        case 0: return nil
        case 1: return .unsupportedURL // UNSUPPORTED_PROTOCOL
        case 3: return .badURL // URL_MALFORMAT
        case 5, 6: return .cannotFindHost // COULDNT_RESOLVE_PROXY, COULDNT_RESOLVE_HOST
        case 7, 45, 97: return .cannotConnectToHost // COULDNT_CONNECT, INTERFACE_FAILED, PROXY
        case 8, 16: return .badServerResponse // WEIRD_SERVER_REPLY, HTTP2 framing
        case 52: return .badServerResponse // GOT_NOTHING: the server closed without a response
        case 18, 55, 56, 92: return .networkConnectionLost // PARTIAL_FILE, SEND_ERROR, RECV_ERROR, HTTP2_STREAM
        case 23, 42: return .cancelled // WRITE_ERROR, ABORTED_BY_CALLBACK
        case 26, 65: return .requestBodyStreamExhausted // READ_ERROR, SEND_FAIL_REWIND
        case 28: return .timedOut // OPERATION_TIMEDOUT
        case 35, 53, 54, 59, 66, 77, 80, 82: return .secureConnectionFailed // SSL connect, engine, cipher, CA file, shutdown, CRL
        case 60, 83, 90, 91: return .serverCertificateUntrusted // PEER_FAILED_VERIFICATION, ISSUER, PINNED key, cert status
        case 58: return .clientCertificateRejected // SSL_CERTPROBLEM (our certificate)
        case 98: return .clientCertificateRequired // SSL_CLIENTCERT
        case 47: return .httpTooManyRedirects // TOO_MANY_REDIRECTS
        case 61: return .cannotDecodeContentData // BAD_CONTENT_ENCODING
        case 63, 100: return .dataLengthExceedsMaximum // FILESIZE_EXCEEDED, TOO_LARGE
        case 67, 94: return .userAuthenticationRequired // LOGIN_DENIED, AUTH_ERROR
        case 95, 96: return .cannotConnectToHost // HTTP3, QUIC_CONNECT_ERROR
        default: return .unknown
        }
    }
}
