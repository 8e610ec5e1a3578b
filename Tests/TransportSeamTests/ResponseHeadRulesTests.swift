@testable import AsyncNetworkingTestSupport

/// What servers may put in a response head, through the public API on the run's transport
/// (`ASYNCNETWORKING_TRANSPORT=urlsession` for URLSession). The same
/// outcome on both transports, except the two status-line differences FoundationNetworking
/// forces (documented in LinuxBehaviour).
@Suite("Response head rules (both transports)")
struct ResponseHeadRulesTests {
    private static func head(_ lines: String...) -> String {
        lines.joined(separator: "\r\n") + "\r\n"
    }

    @Test("a head holding a control character or a name that is not a token is refused", arguments: [
        "X-A: 1\r\n\u{0B}\r\nX-B: 2", // a line of one \x0b: not a line end, not blank
        "X-A: 1\r\n\u{0C}\r\nX-B: 2",
        "X-A: 1\r\n\u{85}\r\nX-B: 2",
        "X-A: 1\r\n\u{2028}\r\nX-B: 2",
        "X-A: a\u{0B}b",
        "X-A: a\u{0C}",
        "X-A: a\rX-B: b", // a bare CR inside a line
        "X-A: a\u{0}b",
        "X-A: a\u{7F}b",
        "X-A: \u{1B}[31m",
        "X A: 1",
        "(x): 1",
        "no colon here",
    ])
    func refusedHeads(fields: String) async throws {
        try await withServerAndManager { server, manager in
            let url = rawResponseURL(server, "HTTP/1.1 200 OK\r\n" + fields + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            let error = await expectNetworkingError { try await manager.data(from: url) }
            #expect(error?.kind == .transport(.badServerResponse), "\(manager.transport): \(String(describing: error))")
            #expect(error?.response == nil)
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test("HTAB, obs-text and folded lines are accepted, with the same values on both transports")
    func acceptedHeads() async throws {
        try await withServerAndManager { server, manager in
            let url = rawResponseURL(server, Self.head(
                "HTTP/1.1 200 OK", "X-Tab: a\tb", "X-Nel: x\u{85}y", "X-Sep: p\u{2028}q", "X-Fold: 1", " 2",
                "Content-Length: 2", "Connection: close", ""
            ) + "ok")
            let (data, response) = try await manager.data(from: url)
            #expect(data == Data("ok".utf8))
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "X-Tab") == "a\tb")
            #expect(response.value(forHTTPHeaderField: "X-Nel") == "x\u{85}y")
            #expect(response.value(forHTTPHeaderField: "X-Sep") == "p\u{2028}q")
            #expect(response.value(forHTTPHeaderField: "X-Fold") == "1 2")
        }
    }

    @Test("status lines both transports accept", arguments: ["HTTP/1.1 200 ", "HTTP/1.0 200 OK", "HTTP/1.1 201 Created"])
    func acceptedStatusLines(line: String) async throws {
        try await withServerAndManager { server, manager in
            let url = rawResponseURL(server, Self.head(line, "Content-Length: 2", "Connection: close", "") + "ok")
            let (data, response) = try await manager.data(from: url)
            #expect(data == Data("ok".utf8))
            #expect(response.statusCode == Int(line.split(separator: " ")[1]))
        }
    }

    @Test("status lines both transports refuse", arguments: [
        "HTTP/1.1 2000 OK", "HTTP/1.1 20 OK", "HTTP/1.1 abc", "HELLO THERE", "HTTP/1.1 099 Low",
    ])
    func refusedStatusLines(line: String) async throws {
        try await withServerAndManager { server, manager in
            let url = rawResponseURL(server, Self.head(line, "Content-Length: 2", "Connection: close", "") + "ok")
            let error = await expectNetworkingError { try await manager.data(from: url) }
            #expect(error?.kind == .transport(.badServerResponse), "\(manager.transport): \(String(describing: error))")
            #expect(error?.response == nil)
        }
    }

    /// RFC 9112 §4: the reason phrase is optional (curl accepts both spellings). FoundationNetworking
    /// needs a second space on the status line and refuses `HTTP/1.1 200`; the URLSession transport
    /// cannot see the raw line, so it reports the refusal as `.badServerResponse`.
    @Test("a status line without a reason and without its trailing space")
    func noReasonNoSpace() async throws {
        try await withServerAndManager { server, manager in
            let url = rawResponseURL(server, Self.head("HTTP/1.1 200", "Content-Length: 2", "Connection: close", "") + "ok")
            if manager.transport == .curl {
                let (data, response) = try await manager.data(from: url)
                #expect(data == Data("ok".utf8))
                #expect(response.statusCode == 200)
            } else {
                let error = await expectNetworkingError { try await manager.data(from: url) }
                #expect(error?.kind == .transport(.badServerResponse), "the documented FoundationNetworking difference")
            }
        }
    }

    /// RFC 9112 §2.3: HTTP-name is case-sensitive. FoundationNetworking does not check the version
    /// and drops it before the response reaches the library, so URLSession accepts the response.
    @Test("a status line whose HTTP-name is not upper case", arguments: ["Http/1.1 200 OK", "http/1.1 200 OK"])
    func httpNameCase(line: String) async throws {
        try await withServerAndManager { server, manager in
            let url = rawResponseURL(server, Self.head(line, "Content-Length: 2", "Connection: close", "") + "ok")
            if manager.transport == .curl {
                let error = await expectNetworkingError { try await manager.data(from: url) }
                #expect(error?.kind == .transport(.badServerResponse))
                #expect(error?.response == nil)
            } else {
                let (data, response) = try await manager.data(from: url)
                #expect(data == Data("ok".utf8), "the documented FoundationNetworking difference")
                #expect(response.statusCode == 200)
            }
        }
    }
}
