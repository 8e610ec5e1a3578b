import Foundation

/// URL lists: `-i` files, duplicates, and which strings are downloadable URLs.
public enum URLList {
    /// The URLs of an `-i` file: one a line; blank lines and everything after a `#` that starts a
    /// line or follows a space are ignored; surrounding whitespace is trimmed.
    public static func parse(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).compactMap { line in
            var content = Substring(line)
            if content.hasPrefix("#") { return nil }
            if let comment = content.range(of: " #") ?? content.range(of: "\t#") {
                content = content[..<comment.lowerBound]
            }
            let trimmed = content.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }
    }

    /// Reads and parses every file of `paths`, in order.
    ///
    /// - Throws: ``UsageError`` naming a file that cannot be read.
    public static func load(_ paths: [String]) throws(UsageError) -> [String] {
        var urls: [String] = []
        for path in paths {
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw UsageError("cannot read the URL list \(path): \(Self.reason(error))")
            }
            urls += parse(text)
        }
        return urls
    }

    /// `urls` in order, each string once.
    public static func removingDuplicates(_ urls: [String]) -> [String] {
        var seen = Set<String>()
        return urls.filter { seen.insert($0).inserted }
    }

    /// The URL when `text` is an absolute `http` or `https` URL with a host, else `nil`.
    public static func downloadableURL(_ text: String) -> URL? {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty,
              let url = components.url
        else { return nil }
        return url
    }

    /// Why `text` is not a downloadable URL, in plain words.
    public static func whyInvalid(_ text: String) -> String {
        guard let components = URLComponents(string: text) else { return "invalid URL" }
        guard let scheme = components.scheme else { return "invalid URL (no http:// or https://)" }
        guard ["http", "https"].contains(scheme.lowercased()) else { return "invalid URL (\(scheme): is not http or https)" }
        return "invalid URL (no host)"
    }

    /// `text` with any password in it replaced by `***`, for display.
    public static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return nsError.localizedDescription
    }
}
