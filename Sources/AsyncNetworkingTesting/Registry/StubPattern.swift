import Foundation

/// Which URLs a stub answers: a pattern with `*` wildcards (pure).
///
/// - An absolute pattern (`https://api.test/users/*`) is matched against the request's URL
///   without its fragment; a pattern starting with `/` (`/users/*`) against the path alone, on any
///   scheme, host and port — handy with an ``HTTPClient`` `baseURL`.
/// - The query takes part only if the pattern has a `?`: `https://api.test/search` answers
///   `https://api.test/search?q=a`, while `https://api.test/search?q=*` requires a query starting
///   with `q=`.
/// - `*` matches any run of characters, `/` included (so `/users/*` also matches
///   `/users/1/photos`); everything else is compared exactly, case included, as the URL is written
///   (percent-encoded).
struct StubPattern: Sendable, Hashable, CustomStringConvertible {
    let text: String
    private let pathOnly: Bool
    private let matchesQuery: Bool

    init(_ text: String) {
        self.text = text
        self.pathOnly = text.hasPrefix("/")
        self.matchesQuery = text.contains("?")
    }

    var description: String { text }

    /// Whether `url` is one this pattern answers.
    func matches(_ url: URL) -> Bool {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return false }
        components.fragment = nil
        if !matchesQuery { components.query = nil }
        let subject: String
        if pathOnly {
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            subject = matchesQuery ? path + (components.percentEncodedQuery.map { "?" + $0 } ?? "") : path
        } else {
            guard let string = components.string else { return false }
            subject = string
        }
        return Self.glob(Array(text.utf8), Array(subject.utf8))
    }

    /// `*`-only glob matching, linear backtracking (the classic two-pointer algorithm).
    static func glob(_ pattern: [UInt8], _ subject: [UInt8]) -> Bool {
        let star = UInt8(ascii: "*")
        var p = 0, s = 0
        var lastStar: Int?, resume = 0
        while s < subject.count {
            if p < pattern.count, pattern[p] == star {
                lastStar = p
                resume = s
                p += 1
            } else if p < pattern.count, pattern[p] == subject[s] {
                p += 1
                s += 1
            } else if let star = lastStar {
                p = star + 1
                resume += 1
                s = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == star { p += 1 }
        return p == pattern.count
    }
}
