import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one URL ended.
public struct FetchResult: Sendable, Equatable {
    /// How it ended.
    public enum Outcome: String, Sendable, Equatable, Codable {
        /// The file is complete at ``FetchResult/path``.
        case ok
        /// It failed; ``FetchResult/error`` says why.
        case failed
        /// Ctrl-C stopped it; a partial file may be kept for `--resume`.
        case interrupted
        /// Ctrl-C came before it started.
        case notStarted = "not-started"
    }

    /// The URL as given (passwords shown as `***`).
    public var url: String
    /// The file written (complete), or the file the download was going to, or `nil`.
    public var path: String?
    /// Bytes in the file (whole size when complete; kept bytes when interrupted).
    public var bytes: Int64
    /// The HTTP status of the last response, when one came.
    public var httpStatus: Int?
    /// How it ended.
    public var outcome: Outcome
    /// Why it failed, in plain words.
    public var error: String?
    /// Wall-clock seconds spent on it.
    public var seconds: Double
    /// Bytes received over the network in this run (not counting bytes kept from an earlier run).
    public var bytesTransferred: Int64

    /// Creates a result.
    public init(
        url: String, path: String?, bytes: Int64, httpStatus: Int?, outcome: Outcome, error: String?,
        seconds: Double, bytesTransferred: Int64
    ) {
        self.url = url
        self.path = path
        self.bytes = bytes
        self.httpStatus = httpStatus
        self.outcome = outcome
        self.error = error
        self.seconds = seconds
        self.bytesTransferred = bytesTransferred
    }

    /// `bytesTransferred / seconds`, or 0.
    public var averageBytesPerSecond: Double {
        seconds > 0 ? Double(bytesTransferred) / seconds : 0
    }
}

/// Failures in plain words: one short phrase per kind of error.
public enum FailureWords {
    /// What went wrong, for a person: `HTTP 404 Not Found`, `connection refused`,
    /// `pin mismatch: …`, `timed out (nothing received for 60 s)`…
    public static func describe(_ error: NetworkingError, timeout: Double? = nil) -> String {
        switch error.kind {
        case .unacceptableStatusCode(let code):
            return "HTTP \(code)" + (reasonPhrase(code).map { " \($0)" } ?? "")
        case .invalidURL: return "invalid URL"
        case .unsupportedScheme(let scheme): return "invalid URL (\(scheme): is not http or https)"
        case .transport(let code): return transportWords(code, timeout: timeout)
        case .serverTrustFailed(let host, let reason):
            switch reason {
            case .publicKeyPinMismatch: return "pin mismatch: the public key of \(host) matches none of the --pin keys"
            case .untrustedRoot: return "TLS: the certificate of \(host) is not trusted"
            case .hostNameMismatch: return "TLS: the certificate does not name \(host)"
            case .expired: return "TLS: the certificate of \(host) has expired"
            default: return "TLS: \(host) refused (\(reason))"
            }
        case .cleartextRefused: return "refused: plain http:// with --pin (pins need https://)"
        case .fileWriteFailed, .downloadMoveFailed: return "cannot write the file: \(error.message)"
        case .responseTooLarge(let limit): return "larger than \(Formatting.bytes(limit))"
        case .transportUnavailable: return "no transport: \(error.message)"
        case .cancelled: return "cancelled"
        default: return error.message
        }
    }

    static func transportWords(_ code: URLError.Code, timeout: Double?) -> String {
        switch code {
        case .cannotConnectToHost: return "connection refused"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .timedOut:
            return "timed out" + (timeout.map { " (nothing received for \(Formatting.seconds($0)))" } ?? "")
        case .networkConnectionLost: return "connection lost"
        case .notConnectedToInternet: return "no network"
        case .secureConnectionFailed: return "TLS handshake failed"
        case .badServerResponse: return "bad response from the server"
        case .httpTooManyRedirects: return "too many redirects"
        default: return "network error (\(code.rawValue))"
        }
    }

    /// The standard reason phrase of common statuses.
    public static func reasonPhrase(_ code: Int) -> String? {
        let phrases: [Int: String] = [
            400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
            406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict", 410: "Gone", 412: "Precondition Failed",
            413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type",
            416: "Range Not Satisfiable", 418: "I'm a teapot", 429: "Too Many Requests",
            500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
            504: "Gateway Timeout",
        ]
        return phrases[code]
    }
}
