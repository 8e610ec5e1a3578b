@testable import AsyncNetworkingTestSupport

/// Rule: a 401 offers every challenge its `WWW-Authenticate` fields list (RFC 9110 §11.6.1) — in
/// one field or several, Basic first or last — so a Basic challenge after another scheme reaches
/// the challenge hook and the stored credential as one alone does; a Basic inside a quoted string
/// offers nothing. Checked on the run's transport against `/basic-auth`, which sends the fields
/// given in `challenge=`.
@Suite("Challenge lists in WWW-Authenticate")
struct ChallengeListTests {
    /// Field lists in which Basic (realm `site`) is not the first challenge.
    static let offers: [[String]] = [
        ["Bearer realm=\"api\", Basic realm=\"site\""],
        ["Bearer realm=\"api\"", "Basic realm=\"site\""],
        ["Digest realm=\"a, Basic realm=b\", nonce=\"n\", Basic realm=\"site\""],
        ["Negotiate, Basic realm=\"site\""],
    ]

    static func path(_ fields: [String]) -> String {
        var components = URLComponents()
        components.path = "/basic-auth/user/secret"
        components.queryItems = fields.map { URLQueryItem(name: "challenge", value: $0) }
        return components.percentEncodedPath + "?" + (components.percentEncodedQuery ?? "")
            .replacingOccurrences(of: "+", with: "%2B")
    }

    static let credential = URLCredential(user: "user", password: "secret", persistence: .none)

    @Test(arguments: offers)
    func theStoredCredentialAnswersABasicChallengeAnywhereInTheList(_ fields: [String]) async throws {
        try await withServerAndManager { server, manager in
            await manager.setCredential(Self.credential, forHost: "127.0.0.1")
            let (body, response) = try await manager.data(from: server.url(Self.path(fields)))
            #expect(response.statusCode == 200, "\(fields): \(String(decoding: body, as: UTF8.self))")
            #expect(server.requests.last?.header("Authorization") == "Basic " + Data("user:secret".utf8).base64EncodedString())
        }
    }

    @Test(arguments: offers)
    func theHookIsAskedAboutTheBasicChallengeWithItsRealm(_ fields: [String]) async throws {
        try await withServerAndManager { server, manager in
            let asked = SanitizedMutex<[(method: String, realm: String?, host: String, isProxy: Bool)]>([])
            await manager.setHooks(SessionHooks(challenge: { context in
                let space = context.challenge.protectionSpace
                asked.withLock { $0.append((space.authenticationMethod, space.realm, space.host, space.isProxy())) }
                return context.previousFailureCount == 0 ? .useCredential(Self.credential) : .refuse
            }))
            let (_, response) = try await manager.data(from: server.url(Self.path(fields)))
            #expect(response.statusCode == 200)
            let questions = asked.withLock { $0 }
            #expect(questions.count == 1, "\(questions)")
            #expect(questions.first?.method == NSURLAuthenticationMethodHTTPBasic)
            #expect(questions.first?.realm == "site")
            #expect(questions.first?.host == "127.0.0.1")
            #expect(questions.first?.isProxy == false)
        }
    }

    /// No Basic challenge (only one named inside a quoted string): nothing answers, the 401 is the
    /// result, sent once.
    @Test func aBasicInsideAQuotedStringOffersNothing() async throws {
        try await withServerAndManager { server, manager in
            await manager.setCredential(Self.credential, forHost: "127.0.0.1")
            let path = Self.path(["Digest realm=\"a, Basic realm=b\", nonce=\"n\""])
            let (_, response) = try await manager.data(from: server.url(path))
            #expect(response.statusCode == 401)
            #expect(server.requests.filter { $0.path == "/basic-auth/user/secret" }.count == 1)
            #expect(server.requests.last?.header("Authorization") == nil)
        }
    }

    /// ``HTTPClient/withCredential(_:)`` reads the same list: Basic anywhere is answered, a quoted
    /// "Basic" is not.
    @Test func theClientsCredentialReadsTheWholeList() async throws {
        try await withServerAndManager { server, manager in
            let client = HTTPClient(manager: manager, baseURL: server.baseURL).withCredential(Self.credential)
            for fields in Self.offers {
                let response = try await client.send(URLRequest(url: server.url(Self.path(fields))), serializer: DataResponseSerializer())
                #expect(response.response.statusCode == 200, "\(fields)")
            }
            let before = server.requests.count
            let quoted = Self.path(["Digest realm=\"a, Basic realm=b\", nonce=\"n\""])
            let error = await expectNetworkingError {
                try await client.send(URLRequest(url: server.url(quoted)), serializer: DataResponseSerializer())
            }
            #expect(error?.response?.statusCode == 401)
            #expect(server.requests.count == before + 1, "no retry with the credential")
            #expect(server.requests.last?.header("Authorization") == nil)
        }
    }
}

/// The same rule for a WebSocket handshake: `/auth-list` answers 401 with a Bearer challenge (whose
/// quoted parameter names "Basic") and Basic in a second `WWW-Authenticate` field.
@Suite("Challenge lists in a WebSocket handshake", .enabled(if: defaultTransportIsCurl && WebSocketTestServer.python != nil, "WebSockets need the curl transport; the test server needs python3"))
struct WebSocketChallengeListTests {
    @Test func theHandshakesBasicChallengeIsFoundInTheSecondField() async throws {
        try await withWebSocketServer { server, manager in
            let realms = SanitizedMutex<[String?]>([])
            await manager.setHooks(SessionHooks(challenge: { context in
                realms.withLock { $0.append(context.challenge.protectionSpace.realm) }
                return context.previousFailureCount == 0
                    ? .useCredential(URLCredential(user: "user", password: "pass", persistence: .none)) : .refuse
            }))
            let socket = try await manager.webSocket(to: server.url("/auth-list"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("Basic dXNlcjpwYXNz"))
            try await socket.close()
            #expect(realms.withLock { $0 } == ["ws-list"])
        }
    }
}
