import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which failures are worth another attempt, and how long to wait first. Pure.
///
/// Retried: a dropped connection, a timeout, a malformed response, any other transport failure
/// that is not about the address (a refused connection, an unknown host and a TLS refusal are
/// final: trying again in a second would not change them), and the statuses that mean "later"
/// (408, 429, 500, 502, 503, 504). A resumable download continues from its partial file, so a
/// retry after a drop costs only the missing bytes.
public enum RetryPolicy {
    /// Whether `error` after `attempt` retries (0 for the first failure) gets another, with at most `limit`.
    public static func shouldRetry(_ error: NetworkingError, attempt: Int, limit: Int) -> Bool {
        guard attempt < limit else { return false }
        switch error.kind {
        case .transport(let code):
            let final: Set<URLError.Code> = [
                .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .secureConnectionFailed,
                .unsupportedURL, .badURL, .cancelled, .notConnectedToInternet,
            ]
            return !final.contains(code)
        case .unacceptableStatusCode(let code):
            return [408, 429, 500, 502, 503, 504].contains(code)
        default:
            return false
        }
    }

    /// The pause before retry number `attempt` (1-based): 0.25 s, 0.5 s, 1 s, … at most 4 s.
    public static func delay(beforeRetry attempt: Int) -> Duration {
        .milliseconds(min(4000, 250 << min(max(0, attempt - 1), 8)))
    }
}
