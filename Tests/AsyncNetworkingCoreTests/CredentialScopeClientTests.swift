@testable import AsyncNetworkingTestSupport

/// The credential-scope rules through the HTTP layer: an adapter's token, a client-wide
/// `Authorization` and a client credential stay with the origin they were given for, on both
/// transports; a 401 from another origin renews and answers nothing.
@Suite struct CredentialScopeClientTests {
    /// Adds a bearer token to every attempt.
    struct TokenAdapter: RequestAdapter {
        func adapt(_ request: URLRequest, context: AdapterContext) async throws -> URLRequest {
            var request = request
            request.setValue("Bearer ADAPTER-TOKEN", forHTTPHeaderField: "Authorization")
            return request
        }
    }

    struct Token: AuthenticationCredential {
        let value: String
        var requiresRefresh: Bool { false }
    }

    /// Counts renewals; never contacts anyone.
    struct CountingAuthenticator: Authenticator {
        let refreshes: ParityCounter
        func apply(_ credential: Token, to request: inout URLRequest) {
            request.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
        }
        func refresh(_ credential: Token?) async throws -> Token {
            refreshes.add()
            return Token(value: "renewed")
        }
    }

    /// A client on `transport` whose base URL is the server's 127.0.0.1 origin.
    static func withClient(
        _ transport: SessionManager.Transport,
        _ body: @escaping @Sendable (LoopbackServer, HTTPClient) async throws -> Void
    ) async throws {
        try await CredentialScopeTests.withManager(transport) { server, manager in
            try await body(server, HTTPClient(manager: manager, baseURL: server.baseURL))
        }
    }

    /// `/redirect-to` on the 127.0.0.1 origin sending the client to `path` on localhost.
    static func toOtherOrigin(_ server: LoopbackServer, _ path: String) -> String {
        "redirect-to?url=" + CredentialScopeTests.encoded(CredentialScopeTests.otherOrigin(server, path))
    }

    @Test(arguments: CredentialScopeTests.transports)
    func anAdaptersTokenNeverFollowsARedirectToAnotherOrigin(_ transport: SessionManager.Transport) async throws {
        try await Self.withClient(transport) { server, client in
            var client = client
            client.pipeline.adapters = [TokenAdapter()]
            let response = try await client.send(Request<Data>.get(Self.toOtherOrigin(server, "/echo")))
            #expect(response.response.statusCode == 200)
            #expect(CredentialScopeTests.headers(at: "/redirect-to", server).first?["authorization"] == "Bearer ADAPTER-TOKEN")
            let seen = try #require(CredentialScopeTests.headers(at: "/echo", server).first)
            #expect(seen["authorization"] == nil, "the adapter's token followed the redirect to another origin")
        }
    }

    @Test(arguments: CredentialScopeTests.transports)
    func aClientWideAuthorizationNeverFollowsARedirectToAnotherOrigin(_ transport: SessionManager.Transport) async throws {
        try await Self.withClient(transport) { server, client in
            var client = client
            client.setAuthorization(bearerToken: "CLIENT-TOKEN")
            let data = try await client.get(Self.toOtherOrigin(server, "/echo"), serializer: DataResponseSerializer())
            #expect(!data.isEmpty)
            let seen = try #require(CredentialScopeTests.headers(at: "/echo", server).first)
            #expect(seen["authorization"] == nil)
        }
    }

    /// A 401 from the origin a redirect led to is the result: the authenticator's credential was
    /// never sent there, so nothing is renewed and the request is not sent again.
    @Test(arguments: CredentialScopeTests.transports)
    func aRefusalFromAnotherOriginRenewsNothing(_ transport: SessionManager.Transport) async throws {
        try await Self.withClient(transport) { server, client in
            var client = client
            let refreshes = ParityCounter()
            client.pipeline.authenticator = AuthenticationInterceptor(
                authenticator: CountingAuthenticator(refreshes: refreshes), credential: Token(value: "first")
            )
            client.pipeline.retryPolicy = NoRetryPolicy()
            let error = await expectNetworkingError {
                try await client.send(Request<Data>.get(Self.toOtherOrigin(server, "/basic-auth/ada/lovelace")))
            }
            #expect(error?.kind == .unacceptableStatusCode(401))
            #expect(refreshes.load() == 0, "a 401 from another origin renewed the credential")
            #expect(CredentialScopeTests.headers(at: "/redirect-to", server).count == 1)
            #expect(CredentialScopeTests.headers(at: "/basic-auth/ada/lovelace", server).allSatisfy { $0["authorization"] == nil })
        }
    }

    /// ``HTTPClient/withCredential(_:)`` answers its own origin's challenge, and nobody else's.
    @Test(arguments: CredentialScopeTests.transports)
    func aClientCredentialAnswersOnlyItsOwnOrigin(_ transport: SessionManager.Transport) async throws {
        try await Self.withClient(transport) { server, client in
            let client = client.withCredential(URLCredential(user: "ada", password: "lovelace", persistence: .none))
            // Its own origin: answered.
            let own = try await client.get("basic-auth/ada/lovelace", serializer: DataResponseSerializer())
            #expect(!own.isEmpty)
            // Another origin's challenge, after a redirect: the 401 is the result, sent once.
            let error = await expectNetworkingError {
                try await client.get(Self.toOtherOrigin(server, "/basic-auth/ada/lovelace"), serializer: DataResponseSerializer())
            }
            #expect(error?.kind == .unacceptableStatusCode(401))
            #expect(CredentialScopeTests.headers(at: "/redirect-to", server).count == 1)
            let elsewhere = CredentialScopeTests.headers(at: "/basic-auth/ada/lovelace", server).filter { $0["host"]?.hasPrefix("localhost") == true }
            #expect(elsewhere.count == 1)
            #expect(elsewhere.allSatisfy { $0["authorization"] == nil })
        }
    }
}
