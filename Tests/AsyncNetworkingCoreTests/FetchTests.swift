@testable import AsyncNetworkingTestSupport

/// `SessionManager.fetch`: the whole-body path answering with a native ``HTTPResponseHead`` —
/// the same transfer as `data(for:)`, on the run's transport (`ASYNCNETWORKING_TRANSPORT`).
@Suite("Fetch with a native response head")
struct FetchTests {
    @Test("status, version, fields as received and the body match what data(for:) reports")
    func sameAsData() async throws {
        try await withServerAndManager { server, manager in
            let url = rawResponseURL(server, [
                "HTTP/1.1 203 Fine", "X-One: 1", "set-cookie: a=1; Path=/", "X-List: p", "Set-Cookie: b=2, c",
                "x-list: q", "Content-Length: 5", "Connection: close", "", "hello",
            ].joined(separator: "\r\n"))
            let (body, head) = try await manager.fetch(from: url)
            let (data, response) = try await manager.data(from: url)
            #expect(body == Data("hello".utf8))
            #expect(body == data)
            #expect(head.statusCode == 203)
            #expect(head.statusCode == response.statusCode)
            #expect(head.url == url)
            #expect(head.value(forHTTPHeaderField: "X-ONE") == "1")
            #expect(head.expectedContentLength == 5)
            #expect(head.value(forHTTPHeaderField: "X-Missing") == nil)
            if manager.transport == .curl {
                // Fields exactly as received: repeated names kept apart, joined only on lookup.
                #expect(head.value(forHTTPHeaderField: "X-List") == "p, q")
                #expect(head.values(forHTTPHeaderField: "SET-COOKIE") == ["a=1; Path=/", "b=2, c"])
                #expect(head.headers["x-list"] == "p, q")
                #expect(head.fields.map(\.name) == ["X-One", "set-cookie", "X-List", "Set-Cookie", "x-list", "Content-Length", "Connection"])
                // Every field Foundation reports is in the native head with the same value.
                for case let (name as String, value as String) in response.allHeaderFields where name.lowercased() != "set-cookie" {
                    #expect(head.value(forHTTPHeaderField: name) == value, "\(name)")
                }
            } else {
                // URLSession's head is the one FoundationNetworking delivered, with its merging of
                // repeated names (LinuxBehaviour); both spellings of X-List are still found.
                #expect(Set(head.value(forHTTPHeaderField: "X-List")?.components(separatedBy: ", ") ?? []) == ["p", "q"])
            }
            let made = try #require(head.makeHTTPURLResponse())
            #expect(made.statusCode == 203)
            #expect(made.value(forHTTPHeaderField: "x-one") == "1")
            #expect(made.url == url)
        }
    }

    @Test("the head's URL is the last one after followed redirects", arguments: [301, 302, 303, 307, 308])
    func urlAfterRedirects(status: Int) async throws {
        try await withServerAndManager { server, manager in
            let (body, head) = try await manager.fetch(from: server.url("/redirect/2?status=\(status)"))
            #expect(String(decoding: body, as: UTF8.self) == "redirected")
            #expect(head.statusCode == 200)
            #expect(head.url.path == "/redirect/0")
        }
    }

    @Test("any status is an answer, not an error; a refused connection is a typed error")
    func statusesAndFailures() async throws {
        try await withServerAndManager { server, manager in
            for status in [204, 404, 500] {
                let (_, head) = try await manager.fetch(from: server.url("/status/\(status)"))
                #expect(head.statusCode == status)
            }
            let port = try RefusingPort()
            let error = await expectNetworkingError { try await manager.fetch(from: port.url("/bytes/1")) }
            #expect(error?.kind == .transport(.cannotConnectToHost), "\(String(describing: error))")
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test("cancelling the caller's task cancels the transfer and throws cancelled")
    func cancellation() async throws {
        try await withServerAndManager { server, manager in
            // A transfer that never ends by itself (`/delay/MS` counts milliseconds: `/delay/30`
            // ended in 30 ms, before a loaded machine's poll saw it running).
            let task = Task { try await manager.fetch(from: server.url("/delay/\(neverEnding)")) }
            #expect(await eventually { await manager.activeTransferCount == 1 })
            task.cancel()
            let result = await task.result
            #expect(throws: NetworkingError.self) { try result.get() }
            if case .failure(let error as NetworkingError) = result { #expect(error.kind == .cancelled) }
            #expect(await eventually { await manager.activeTransferCount == 0 })
        }
    }

    @Test("description shows the head but never a cookie's value")
    func descriptionRedactsSecrets() async throws {
        try await withServerAndManager { server, manager in
            let url = rawResponseURL(server, [
                "HTTP/1.1 200 OK", "Set-Cookie: session=s3cr3t", "X-Visible: yes", "Content-Length: 0",
                "Connection: close", "", "",
            ].joined(separator: "\r\n"))
            let (_, head) = try await manager.fetch(from: url)
            #expect(head.description.contains("X-Visible: yes"))
            #expect(head.description.contains("Set-Cookie: …"))
            #expect(!head.description.contains("s3cr3t"))
        }
    }
}
