import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Renders a request as a `curl` command line.
enum CURLDescription {
    /// `curl -X METHOD 'URL' -H 'Name: value' … --data-binary '…'`, one option per line.
    ///
    /// Redacted (the default): URL user and password removed, query values and fragment replaced
    /// by `…`, values of `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
    /// replaced by `<redacted>`, and the body replaced by its size.
    static func make(_ request: URLRequest, redacted: Bool) -> String {
        let method = request.httpMethod ?? "GET"
        let url = redacted ? redactedURL(request.url) : (request.url?.absoluteString ?? "")
        var lines = ["curl -X \(method) \(quoted(url))"]
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            let shown = redacted && isSecret(name) ? "<redacted>" : value
            lines.append("-H \(quoted("\(name): \(shown)"))")
        }
        if let body = request.httpBody, !body.isEmpty {
            if redacted {
                lines.append("--data-binary \(quoted("<\(body.count) bytes redacted>"))")
            } else {
                lines.append("--data-binary \(quoted(String(decoding: body, as: UTF8.self)))")
            }
        }
        return lines.joined(separator: " \\\n\t")
    }

    /// Whether a header's value is a secret.
    static func isSecret(_ name: String) -> Bool {
        Redaction.secretHeaderNames.contains(name.lowercased())
    }

    /// The URL without user and password, its query values, bare query components and fragment
    /// replaced by `…` (the query's names stay): `Redaction.urlKeepingQueryNames(_:)`.
    static func redactedURL(_ url: URL?) -> String {
        Redaction.urlKeepingQueryNames(url)
    }

    /// Single-quoted for a POSIX shell.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension URLRequest {
    /// The request as a `curl` command. Redacted by default (see ``LoggingMonitor``): credential
    /// headers, query values and the body are hidden; pass `redacted: false` to see them.
    public func cURLDescription(redacted: Bool = true) -> String {
        CURLDescription.make(self, redacted: redacted)
    }
}
