import Foundation

/// The end of a run: the exit status, the summary line, one line per failure, the JSON document
/// and the command that resumes an interrupted run. Pure functions of the results.
public enum Summary {
    /// Exit status: 0 when every URL succeeded, 130 when Ctrl-C stopped the run, else 1.
    public static func exitStatus(_ results: [FetchResult], interrupted: Bool) -> Int32 {
        if interrupted { return 130 }
        return results.allSatisfy { $0.outcome == .ok } ? 0 : 1
    }

    /// `7 of 8 files, 210 MiB in 2.31 s (91.0 MiB/s); 1 failed`.
    public static func line(_ results: [FetchResult], seconds: Double) -> String {
        let ok = results.filter { $0.outcome == .ok }
        let bytes = results.reduce(Int64(0)) { $0 + $1.bytesTransferred }
        var text = "\(ok.count) of \(results.count) file\(results.count == 1 ? "" : "s"), "
            + "\(Formatting.bytes(bytes)) in \(Formatting.seconds(seconds))"
        if seconds > 0 { text += " (\(Formatting.rate(Double(bytes) / seconds)))" }
        let failed = results.count { $0.outcome == .failed }
        let stopped = results.count { $0.outcome == .interrupted || $0.outcome == .notStarted }
        if failed > 0 { text += "; \(failed) failed" }
        if stopped > 0 { text += "; \(stopped) interrupted" }
        return text
    }

    /// One line per failed URL: `failed: URL: HTTP 404 Not Found`.
    public static func failureLines(_ results: [FetchResult]) -> [String] {
        results.filter { $0.outcome == .failed }.map { "failed: \($0.url): \($0.error ?? "unknown error")" }
    }

    /// The JSON summary: `{"ok": …, "failed": …, "interrupted": …, "seconds": …, "files": [{url, path,
    /// bytes, status, httpStatus, error, seconds, bytesPerSecond}]}`, keys sorted, one document.
    public static func json(_ results: [FetchResult], seconds: Double) -> String {
        struct File: Encodable {
            var url: String
            var path: String?
            var bytes: Int64
            var status: String
            var httpStatus: Int?
            var error: String?
            var seconds: Double
            var bytesPerSecond: Double

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(url, forKey: .url)
                try container.encode(path, forKey: .path)  // null when there is none
                try container.encode(bytes, forKey: .bytes)
                try container.encode(status, forKey: .status)
                try container.encode(httpStatus, forKey: .httpStatus)
                try container.encode(error, forKey: .error)
                try container.encode(Summary.rounded(seconds), forKey: .seconds)
                try container.encode(Summary.rounded(bytesPerSecond), forKey: .bytesPerSecond)
            }

            enum CodingKeys: String, CodingKey { case url, path, bytes, status, httpStatus, error, seconds, bytesPerSecond }
        }
        struct Document: Encodable {
            var ok: Int
            var failed: Int
            var interrupted: Int
            var seconds: Double
            var files: [File]
        }
        let document = Document(
            ok: results.count { $0.outcome == .ok }, failed: results.count { $0.outcome == .failed },
            interrupted: results.count { $0.outcome == .interrupted || $0.outcome == .notStarted },
            seconds: rounded(seconds),
            files: results.map {
                File(url: $0.url, path: $0.path, bytes: $0.bytes, status: $0.outcome.rawValue, httpStatus: $0.httpStatus,
                     error: $0.error, seconds: $0.seconds, bytesPerSecond: $0.averageBytesPerSecond)
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(document) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Three decimals, so the JSON stays readable.
    static func rounded(_ value: Double) -> Double {
        guard value.isFinite else { return 0 }
        return (value * 1000).rounded() / 1000
    }

    /// The command that continues an interrupted run: `--resume`, the same options, and only the URLs
    /// that did not finish (interrupted or not started), each shell-quoted. Values of headers that
    /// carry credentials are replaced by `<redacted>` (the line says so), and so are URL passwords.
    public static func resumeCommand(program: String, options: FetchOptions, results: [FetchResult], urls: [String]) -> String? {
        let unfinished = zip(results, urls).filter { $0.0.outcome == .interrupted || $0.0.outcome == .notStarted }.map(\.1)
        guard !unfinished.isEmpty else { return nil }
        var words = [program, "--resume"]
        if options.outputDirectory != "." { words += ["-o", options.outputDirectory] }
        if options.jobs != 4 { words += ["-j", String(options.jobs)] }
        if options.retries != 3 { words += ["--retries", String(options.retries)] }
        if let timeout = options.timeout { words += ["--timeout", String(format: "%g", timeout)] }
        if options.force { words.append("--force") }
        if options.quiet { words.append("--quiet") }
        if options.json { words.append("--json") }
        for pin in options.pins { words += ["--pin", pin] }
        for header in options.headers {
            let secret = isSecret(header.name)
            words += ["-H", "\(header.name): \(secret ? "<redacted>" : header.value)"]
        }
        words += unfinished.map(URLList.redacted)
        return words.map(shellQuoted).joined(separator: " ")
    }

    /// Headers whose values are credentials and are never printed.
    public static func isSecret(_ headerName: String) -> Bool {
        let name = headerName.lowercased()
        return ["authorization", "proxy-authorization", "cookie"].contains(name)
            || ["token", "secret", "key", "password", "auth"].contains { name.contains($0) }
    }

    /// `word` as one shell word: unchanged when it holds only safe characters, else in single quotes.
    public static func shellQuoted(_ word: String) -> String {
        let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")
        if !word.isEmpty, word.unicodeScalars.allSatisfy(safe.contains) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
