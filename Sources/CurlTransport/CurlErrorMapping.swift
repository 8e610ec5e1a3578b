import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Maps libcurl's `CURLcode`s to the `URLError.Code`s the rest of the library already speaks
/// (`NetworkingError.Kind.transport`). A pure function; the numbers are libcurl's (curl.h).
package enum CurlErrorMapping {
    /// The `URLError.Code` for a failed transfer's `CURLcode`, or `nil` for 0 (success).
    ///
    /// Every code libcurl 7.88–8.x defines has a meaning here (the rule: no `CURLcode` a transfer
    /// can end with maps to `.unknown`); only the numbers curl.h marks obsolete or never used
    /// (``obsoleteCodes``) and numbers past the table do. The completion's message keeps curl's
    /// own words. Notable choices:
    /// - `CURLE_ABORTED_BY_CALLBACK` (a cancel), `CURLE_WRITE_ERROR` (the write callback refused
    ///   data, which this layer only does to abort) and `CURLE_CHUNK_FAILED` → `.cancelled`;
    /// - `CURLE_PARTIAL_FILE` (a body shorter than announced), send and receive errors, HTTP/2
    ///   stream and HTTP/3 errors → `.networkConnectionLost`;
    /// - `CURLE_OUT_OF_MEMORY`, `CURLE_FILESIZE_EXCEEDED`, `CURLE_TOO_LARGE` (a resource limit
    ///   hit) → `.dataLengthExceedsMaximum`;
    /// - `CURLE_BAD_CONTENT_ENCODING` → `.cannotDecodeContentData`;
    /// - libcurl's own set-up failures (init, a missing function, a bad argument or option, a
    ///   call from a callback, an unusable poll) → `.resourceUnavailable`;
    /// - codes of protocols this library never enables (FTP, TFTP, LDAP, SSH, RTSP) map by
    ///   meaning, so a table over every code has no hole.
    package static func urlErrorCode(for code: Int32) -> URLError.Code? {
        switch code {
        case 0: return nil
        case 1, 4: return .unsupportedURL // UNSUPPORTED_PROTOCOL, NOT_BUILT_IN
        case 3: return .badURL // URL_MALFORMAT
        case 5, 6: return .cannotFindHost // COULDNT_RESOLVE_PROXY, COULDNT_RESOLVE_HOST
        case 7, 10, 45, 89, 96, 97: return .cannotConnectToHost // COULDNT_CONNECT, FTP_ACCEPT_FAILED, INTERFACE_FAILED, NO_CONNECTION_AVAILABLE, QUIC_CONNECT_ERROR, PROXY
        case 12: return .timedOut // FTP_ACCEPT_TIMEOUT
        case 28: return .timedOut // OPERATION_TIMEDOUT
        case 8, 16, 52: return .badServerResponse // WEIRD_SERVER_REPLY, HTTP2 framing, GOT_NOTHING (closed without a response)
        case 11, 13, 14, 15, 17, 21, 22, 30, 31, 33, 36, 39, 71, 72, 84, 85, 86, 87:
            // FTP replies, QUOTE, HTTP_RETURNED_ERROR, RANGE_ERROR, BAD_DOWNLOAD_RESUME, LDAP search,
            // TFTP illegal/unknown id, PRET, RTSP CSeq/session, file list: the server's answer was not usable
            return .badServerResponse
        case 18, 25, 55, 56, 81, 92, 95: return .networkConnectionLost // PARTIAL_FILE, UPLOAD_FAILED, SEND/RECV_ERROR, AGAIN, HTTP2_STREAM, HTTP3
        case 23, 42, 88: return .cancelled // WRITE_ERROR, ABORTED_BY_CALLBACK, CHUNK_FAILED
        case 26, 34, 65: return .requestBodyStreamExhausted // READ_ERROR, HTTP_POST_ERROR, SEND_FAIL_REWIND
        case 27, 63, 70, 100: return .dataLengthExceedsMaximum // OUT_OF_MEMORY, FILESIZE_EXCEEDED, REMOTE_DISK_FULL, TOO_LARGE
        case 35, 53, 54, 59, 64, 66, 77, 79, 80, 82, 101: return .secureConnectionFailed // SSL connect, engine, cipher, USE_SSL, CA file, SSH, shutdown, CRL, ECH
        case 60, 83, 90, 91: return .serverCertificateUntrusted // PEER_FAILED_VERIFICATION, ISSUER, PINNED key, cert status
        case 58: return .clientCertificateRejected // SSL_CERTPROBLEM (our certificate)
        case 98: return .clientCertificateRequired // SSL_CLIENTCERT
        case 47: return .httpTooManyRedirects // TOO_MANY_REDIRECTS
        case 61: return .cannotDecodeContentData // BAD_CONTENT_ENCODING
        case 9, 69: return .noPermissionsToReadFile // REMOTE_ACCESS_DENIED, TFTP_PERM
        case 19, 68, 78: return .fileDoesNotExist // FTP_COULDNT_RETR_FILE, TFTP_NOTFOUND, REMOTE_FILE_NOT_FOUND
        case 37: return .cannotOpenFile // FILE_COULDNT_READ_FILE
        case 73: return .cannotCreateFile // REMOTE_FILE_EXISTS
        case 38: return .cannotConnectToHost // LDAP_CANNOT_BIND
        case 67, 74, 94: return .userAuthenticationRequired // LOGIN_DENIED, TFTP_NOSUCHUSER, AUTH_ERROR
        case 2, 41, 43, 48, 49, 93, 99: return .resourceUnavailable // FAILED_INIT, FUNCTION_NOT_FOUND, BAD_FUNCTION_ARGUMENT, UNKNOWN_OPTION, SETOPT_OPTION_SYNTAX, RECURSIVE_API_CALL, UNRECOVERABLE_POLL
        default: return .unknown // obsolete numbers (``obsoleteCodes``) and codes newer than this table
        }
    }

    /// Numbers curl.h reserves as obsolete or never assigned (curl_easy_strerror: "Unknown
    /// error"); libcurl returns none of them.
    static let obsoleteCodes: Set<Int32> = [20, 24, 29, 32, 40, 44, 46, 50, 51, 57, 62, 75, 76]
}
