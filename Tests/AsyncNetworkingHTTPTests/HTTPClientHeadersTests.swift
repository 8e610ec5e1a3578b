@testable import AsyncNetworkingTestSupport

/// `HTTPHeaders`, the header helpers, and authorization (client-wide, per request, challenge).
@Suite("HTTPClient: headers and authorization")
struct HTTPClientHeadersTests {
    // MARK: HTTPHeaders, pure

    @Test func headersMatchNamesCaseInsensitivelyAndKeepTheirOrder() {
        var headers: HTTPHeaders = ["X-B": "1", "x-a": "2", "Accept": "text/html"]
        #expect(headers["x-b"] == "1" && headers["X-A"] == "2" && headers["ACCEPT"] == "text/html")
        headers.update(name: "accept", value: "application/json")
        #expect(headers.all.map(\.name) == ["X-B", "x-a", "Accept"], "an update keeps the place and spelling")
        #expect(headers["Accept"] == "application/json")
        headers.add(name: "X-B", value: "3")
        #expect(headers["x-b"] == "1, 3")
        headers["X-A"] = nil
        #expect(headers.all.map(\.name) == ["X-B", "Accept"])
        #expect(!headers.contains(name: "x-a"))
        let repeated: HTTPHeaders = ["Name": "first", "NAME": "last"]
        #expect(repeated.count == 1 && repeated["name"] == "last")
        #expect(HTTPHeaders(["b": "2", "a": "1"]).all.map(\.name) == ["a", "b"], "a dictionary is taken in name order")
        #expect(HTTPHeaders(["A": "1", "B": "2"]) == ["b": "2", "a": "1"], "equality ignores case and order")
        #expect(HTTPHeaders(["A": "1"]) != ["A": "2"])
        let merged = HTTPHeaders(["Accept": "a", "X": "1"]).merging(["accept": "b", "Y": "2"])
        #expect(merged.all.map(\.description) == ["Accept: b", "X: 1", "Y: 2"])
    }

    @Test func helpersBuildTheCommonFields() {
        #expect(HTTPHeader.authorization(username: "Aladdin", password: "open sesame").value == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(HTTPHeader.authorization(bearerToken: "t0k").description == "Authorization: Bearer t0k")
        let headers: HTTPHeaders = [.accept("application/json"), .contentType("text/plain"), .userAgent("ua/1"), .defaultAcceptEncoding]
        #expect(headers.all.map(\.name) == ["Accept", "Content-Type", "User-Agent", "Accept-Encoding"])
        #expect(HTTPHeaders.standard["user-agent"] == DefaultHeaders.standard["User-Agent"])
        #expect(HTTPHeaders.standard["accept-language"] == DefaultHeaders.standard["Accept-Language"])
    }

    // MARK: On the wire

    @Test func defaultHeadersAndCallHeadersReachTheServerWithTheCallWinning() async throws {
        try await withClient { server, client in
            var client = client
            client.defaultHeaders.update(.accept("application/json"))
            client.defaultHeaders.update(.defaultAcceptEncoding)
            client.defaultHeaders["X-Client"] = "c"
            let echo: Echo = try await client.get("echo", headers: [.accept("text/json"), .userAgent("parity/1")])
            #expect(echo.headers["accept"] == "text/json", "the call's header replaces the default in another case")
            #expect(echo.headers["user-agent"] == "parity/1")
            #expect(echo.headers["x-client"] == "c")
            #expect(echo.headers["accept-encoding"] == "gzip;q=1.0, deflate;q=0.9")
            #expect(server.requests.last?.headerValues("Accept").count == 1, "one Accept, not two")
            let zeros = try await client.get("gzip/5000", serializer: DataResponseSerializer())
            #expect(zeros == Data(count: 5000), "a gzip body is still decoded with the explicit Accept-Encoding")
        }
    }

    @Test func authorizationIsSentClientWideOrPerRequestAndCanBeCleared() async throws {
        try await withClient { server, client in
            var client = client
            client.setAuthorization(username: "ada", password: "p w")
            let basic: AuthReply = try await client.get("basic-auth/ada/p%20w")
            #expect(basic.authenticated && basic.user == "ada")
            client.setAuthorization(bearerToken: "abc")
            let bearer: Echo = try await client.get("echo")
            #expect(bearer.headers["authorization"] == "Bearer abc")
            let perCall: Echo = try await client.get("echo", headers: [.authorization(bearerToken: "call")])
            #expect(perCall.headers["authorization"] == "Bearer call")
            client.clearAuthorization()
            let none: Echo = try await client.get("echo")
            #expect(none.headers["authorization"] == nil)
            #expect(server.requests.count == 4)
        }
    }

    @Test func aPerRequestCredentialAnswersABasicChallengeOnce() async throws {
        try await withClient { server, client in
            let credential = URLCredential(user: "ada", password: "secret", persistence: .none)
            let reply: AuthReply = try await client.withCredential(credential).get("basic-auth/ada/secret")
            #expect(reply.authenticated)
            let attempts = server.requests.filter { $0.path == "/basic-auth/ada/secret" }
            #expect(attempts.count == 2, "one challenge, one answer")
            #expect(attempts.first?.header("Authorization") == nil)
            #expect(attempts.last?.header("Authorization") == HTTPHeader.authorization(username: "ada", password: "secret").value)

            server.clearRequests()
            let wrong = URLCredential(user: "ada", password: "nope", persistence: .none)
            let error = await #expect(throws: NetworkingError.self) {
                let _: AuthReply = try await client.withCredential(wrong).get("basic-auth/ada/secret")
            }
            #expect(error?.kind == .unacceptableStatusCode(401))
            #expect(server.requests.count == 2, "a rejected credential is not retried again")

            server.clearRequests()
            await #expect(throws: NetworkingError.self) {
                let _: AuthReply = try await client.get("basic-auth/ada/secret")
            }
            #expect(server.requests.count == 1, "no credential, no retry")
        }
    }
}
