import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``EventMonitor`` that writes one line per step, secrets redacted.
///
/// Lines name the request (`#12`), the attempt, the method and the URL, with the URL's user and
/// password removed and its query values replaced by `…`. At ``Level/debug`` the request's
/// headers are printed too, with `Authorization`, `Proxy-Authorization`, `Cookie` and
/// `Set-Cookie` values replaced by `<redacted>`. Set ``showsSecrets`` only on a machine of your own.
///
/// ```swift
/// client.pipeline.monitors.append(LoggingMonitor(level: .info))
/// // #3 GET http://api.example.com/v1/users?page=… → 503 (attempt 1, 12 ms)
/// // #3 retry in 0.41 s after: status 503
/// // #3 completed 200 after 2 attempts
/// ```
public struct LoggingMonitor: EventMonitor {
    /// How much is written.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        /// Failed requests only.
        case error = 0
        /// Each response, retry and completion.
        case info = 1
        /// Every event, with the request's headers.
        case debug = 2

        /// Orders by verbosity.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What is written. Default ``Level/info``.
    public var level: Level
    /// Prints credential headers and query values as they are. Default `false`.
    public var showsSecrets: Bool
    /// Where lines go. Default: standard error.
    public var write: @Sendable (String) -> Void

    /// Creates a monitor; every argument has the default described on its property.
    public init(level: Level = .info, showsSecrets: Bool = false, write: @escaping @Sendable (String) -> Void = LoggingMonitor.standardError) {
        self.level = level
        self.showsSecrets = showsSecrets
        self.write = write
    }

    /// Writes `line` and a newline to standard error.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Writes the event's line when the level asks for it.
    public func receive(_ event: RequestEvent) {
        guard let line = line(for: event) else { return }
        write(line)
    }

    /// The line for `event` at this monitor's level, or `nil`.
    func line(for event: RequestEvent) -> String? {
        let id = event.requestID
        switch event {
        case .adapted(_, let attempt, let request):
            guard level >= .debug else { return nil }
            return "\(id) adapted (attempt \(attempt)) \(describe(request))\(headers(request))"
        case .started(_, let attempt, let request):
            guard level >= .debug else { return nil }
            return "\(id) started (attempt \(attempt)) \(describe(request))"
        case .redirected(_, let attempt, let count, let finalURL):
            guard level >= .debug else { return nil }
            return "\(id) followed \(count) redirect(s) to \(url(finalURL)) (attempt \(attempt))"
        case .response(_, let attempt, let response, let metrics):
            guard level >= .info else { return nil }
            return "\(id) \(url(response.url)) → \(response.statusCode) (attempt \(attempt), \(milliseconds(metrics.duration)) ms)"
        case .challenged(_, let attempt, let response):
            guard level >= .debug else { return nil }
            return "\(id) challenged with \(response.statusCode) (attempt \(attempt))"
        case .attemptFailed(_, let attempt, let error):
            guard level >= .info else { return nil }
            return "\(id) attempt \(attempt) failed: \(error)"
        case .retryScheduled(_, _, let delay, let reason):
            guard level >= .info else { return nil }
            let seconds = String(format: "%.2f", DefaultRetryPolicy.seconds(delay))
            return "\(id) retry in \(seconds) s after: \(reason.statusCode.map { "status \($0)" } ?? reason.description)"
        case .completed(_, let attempts, .success(let response), _):
            guard level >= .info else { return nil }
            return "\(id) completed \(response.statusCode) after \(attempts) attempt(s)"
        case .completed(_, let attempts, .failure(let error), _):
            return "\(id) failed after \(attempts) attempt(s): \(error)"
        }
    }

    private func describe(_ request: URLRequest) -> String {
        "\(request.httpMethod ?? "GET") \(url(request.url))"
    }

    private func url(_ url: URL?) -> String {
        showsSecrets ? (url?.absoluteString ?? "(no URL)") : CURLDescription.redactedURL(url)
    }

    private func headers(_ request: URLRequest) -> String {
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        guard !fields.isEmpty else { return "" }
        return fields.map { name, value in
            "\n    \(name): \(!showsSecrets && CURLDescription.isSecret(name) ? "<redacted>" : value)"
        }.joined()
    }

    private func milliseconds(_ duration: Duration) -> Int {
        Int(clamping: DefaultRetryPolicy.seconds(duration) * 1000)
    }
}
