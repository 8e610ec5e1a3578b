@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// The rule: once a final head is complete, the lines libcurl hands over after the body are the
/// trailer section, whatever they look like — a line that breaks the field rules (shaped like a
/// status line, no colon, a name that is not a token, an obsolete fold, a control character, a
/// NUL) is dropped and the response stays complete with every valid trailer around it. The
/// trailer state is checked before any status-line logic; only a new request (curl's own
/// authentication retry, reported by `CURLOPT_PREREQFUNCTION`) starts a new head.
///
/// Where the failure came from: `HTTP/1.1 2000 Weird` (and every line without a colon) failed the
/// response twice over — in our head parser (a malformed status line, where the trailer state was
/// checked too late) and in libcurl 7.88 itself, whose header store refuses a line without a colon
/// (`CURLE_BAD_FUNCTION_ARGUMENT`, "Failed reading the chunked-encoded stream") before the header
/// callback sees it. libcurl also fails on a NUL, on a bare CR and on a line longer than its 4 KiB
/// trailer buffer. For those the transport knows the body was complete (the last chunk was
/// followed in libcurl's raw data, `CurlChunkedFraming`): the response stands, with the trailers
/// before the line libcurl refused (it reads no further), never a line it cut short.
@Suite("Bad trailer lines never fail a complete response")
struct CurlBadTrailerLineTests {
    /// Each bad line, and whether libcurl 7.88 refuses it itself (then the trailers after it are
    /// never read).
    struct BadLine: Sendable, CustomTestStringConvertible {
        let line: String
        let curlRefuses: Bool
        init(_ line: String, _ curlRefuses: Bool) {
            self.line = line
            self.curlRefuses = curlRefuses
        }
        var testDescription: String { line.debugDescription }
    }

    static let badLines: [BadLine] = [
        BadLine("HTTP/1.1 2000 Weird", true),
        BadLine("HTTP/1.1 200 OK", true),
        BadLine("HTTP/2 500", true),
        BadLine("NoColonHere", true),
        BadLine("X-CR: a\rb", true),
        BadLine("Bad Name: 1", false),
        BadLine(": empty", false),
        BadLine("X(y): 1", false),
        BadLine("Ümlaut: 1", false),
        BadLine(" folded continuation", false),
        BadLine("\tfolded continuation", false),
        BadLine("X-Ctl: a\u{0B}b", false),
        BadLine("X-Del: a\u{7F}b", false),
        BadLine("X-Nul: a\u{0}b", true),
        BadLine("X\u{0}Nul: b", true),
    ]

    /// The trailers a response with `bad` between `X-Before` and `X-After` keeps.
    static func kept(_ bad: BadLine) -> [String] {
        bad.curlRefuses ? ["X-Before"] : ["X-Before", "X-After"]
    }

    /// The parser alone: every bad line between two good trailers.
    @Test("the parser drops each bad trailer line and keeps the good ones", arguments: badLines)
    func parserDropsABadTrailerLine(_ bad: BadLine) {
        var parser = CurlHeadParser()
        for line in ["HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "", "X-Before: 1", bad.line, "X-After: 2"] {
            _ = parser.consume(line + "\r\n")
        }
        #expect(parser.failure == nil, "\(bad.testDescription): \(parser.failure ?? "")")
        #expect(parser.isComplete)
        #expect(parser.trailers.map(\.name) == ["X-Before", "X-After"])
    }

    /// A status line after a complete head starts a new head only once a new request was made.
    @Test("after a new request, a status line starts a new head again")
    func aNewRequestEndsTheTrailerSection() {
        var parser = CurlHeadParser()
        for line in ["HTTP/1.1 401 Unauthorized", "Transfer-Encoding: chunked", "", "X-T: 1"] { _ = parser.consume(line + "\r\n") }
        parser.beginRequest()
        _ = parser.consume("HTTP/1.1 200 OK\r\n")
        let head = parser.consume("\r\n")
        #expect(head?.statusCode == 200)
        #expect(parser.trailers.isEmpty)
    }

    /// A chunked 200 with the body `hello` and `trailerLines` as its trailer section, raw.
    private static func chunked(trailers trailerLines: [String]) -> String {
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n"
            + trailerLines.map { $0 + "\r\n" }.joined() + "\r\n"
    }

    /// Fetches `raw` on a curl loop; its completion and body.
    private static func fetch(_ raw: String) async throws -> (CurlCompletion, Data) {
        try await withCurlLoop(deadline: 30) { server, loop, recorder in
            let id = try loop.get(rawResponseURL(server, raw))
            let completion = await recorder.completion(of: id)
            return (completion, recorder.record(id).body)
        }
    }

    /// On the wire: a chunked 200 whose trailer section holds the bad line, served raw.
    @Test("a real chunked 200 with a bad trailer line completes with its body and good trailers", arguments: badLines)
    func aRealResponseWithABadTrailerLineCompletes(_ bad: BadLine) async throws {
        let (completion, body) = try await Self.fetch(Self.chunked(trailers: ["X-Before: 1", bad.line, "X-After: 2"]))
        #expect(completion.succeeded, "\(bad.testDescription): \(completion.code) \(completion.message)")
        #expect(body == Data("hello".utf8))
        #expect(completion.trailers.map(\.name) == Self.kept(bad), "\(bad.testDescription)")
    }

    /// A long trailer line within libcurl's 4 KiB trailer buffer is a trailer like any other.
    @Test("a long trailer line is kept")
    func aLongTrailerLineIsKept() async throws {
        let (completion, _) = try await Self.fetch(Self.chunked(trailers: ["X-Long: " + String(repeating: "v", count: 4_000), "X-After: 2"]))
        #expect(completion.succeeded, "\(completion.code) \(completion.message)")
        #expect(completion.trailers.map(\.name) == ["X-Long", "X-After"])
        #expect(completion.trailers.first?.value.count == 4_000)
    }

    /// A trailer line over libcurl's 4 KiB trailer buffer: libcurl 7.88 fails the transfer ("Out
    /// of memory in chunked-encoding") after the last chunk; the response stands, with the
    /// trailers before that line.
    @Test("a trailer line over libcurl's trailer buffer leaves the response complete")
    func aHugeTrailerLine() async throws {
        let huge = "X-Huge: " + String(repeating: "v", count: 16 << 10)
        let (completion, body) = try await Self.fetch(Self.chunked(trailers: ["X-Before: 1", huge, "X-After: 2"]))
        #expect(completion.succeeded, "\(completion.code) \(completion.message)")
        #expect(body == Data("hello".utf8))
        #expect(completion.trailers.map(\.name) == ["X-Before"])
    }

    /// A body cut before its last chunk still fails: only the trailer section is forgiven.
    @Test("a chunked body cut before its last chunk still fails", arguments: [
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n3\r\nab",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhelloXX\r\n0\r\n\r\n",
    ])
    func aCutBodyStillFails(raw: String) async throws {
        #expect(!(try await Self.fetch(raw)).0.succeeded)
    }

    /// Through the public API: the event stream ends with `.completed`, the body whole and the
    /// good trailers in the metrics.
    @Test("through the manager, a bad trailer line leaves the response complete", arguments: badLines)
    func throughTheManager(_ bad: BadLine) async throws {
        try await withServerAndManager(transport: .curl) { server, manager in
            let raw = Self.chunked(trailers: ["X-Before: 1", bad.line, "X-After: 2"])
            let events = try await collectEvents(manager.dataTask(with: URLRequest(url: rawResponseURL(server, raw))))
            let body = events.reduce(into: Data()) { if case .data(let chunk) = $1 { $0.append(chunk) } }
            let metrics = events.lazy.compactMap { if case .completed(let done) = $0 { done } else { nil } }.first
            #expect(body == Data("hello".utf8))
            #expect(metrics?.trailers["X-Before"] == "1")
            #expect(metrics?.trailers["X-After"] == (Self.kept(bad).count == 2 ? "2" : nil))
            #expect(metrics?.trailers.count == Self.kept(bad).count)
        }
    }
}
