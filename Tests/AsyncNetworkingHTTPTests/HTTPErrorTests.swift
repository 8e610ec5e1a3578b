@testable import AsyncNetworkingTestSupport

@Suite("HTTP errors: payloads, transport, redaction")
struct HTTPErrorTests {
    @Test func serverErrorPayloadIsReadableFromTheError() async throws {
        try await withClient { _, client in
            let error = await expectNetworkingError { try await client.get("basic-auth/user/secret", as: AuthReply.self) }
            #expect(error?.kind == .unacceptableStatusCode(401))
            #expect(error?.response?.value(forHTTPHeaderField: "WWW-Authenticate") == #"Basic realm="loopback""#)
            let payload = try #require(try error?.decodeBody(as: AuthReply.self))
            #expect(payload.authenticated == false)
            let json = try #require(try error?.decodeBody(as: JSONValue.self))
            #expect(json["authenticated"] == false)
            let wrongType = #expect(throws: NetworkingError.self) { try error?.decodeBody(as: [Int].self) }
            #expect(wrongType?.kind == .responseSerializationFailed)
            #expect(wrongType?.underlyingError is DecodingError)
        }
    }

    @Test func errorWithoutBodyCannotBeDecoded() {
        let error = NetworkingError(.transport(.timedOut))
        #expect(error.bodyText == nil)
        let decoded = #expect(throws: NetworkingError.self) { try error.decodeBody(as: AuthReply.self) }
        #expect(decoded?.kind == .responseSerializationFailed)
    }

    @Test func droppedConnectionIsATransportError() async throws {
        try await withClient { _, client in
            let error = await expectNetworkingError { try await client.get("drop", as: Document.self) }
            guard case .transport = error?.kind else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(error?.request?.url?.path == "/drop")
        }
    }

    @Test func refusedConnectionIsATypedTransportError() async throws {
        // Port 1 on loopback: privileged and unused, so always refused (a stopped server's port
        // could be reused by a server of a test running in parallel).
        let url = URL(string: "http://127.0.0.1:1/json")!
        try await withDeadline {
            await withSessionManager { manager in
                let client = HTTPClient(manager: manager)
                let error = await expectNetworkingError { try await client.get(url, as: Document.self) }
                #expect(error?.kind == .transport(.cannotConnectToHost))
                #expect(error?.urlErrorCode == .cannotConnectToHost)
                #expect(error?.response == nil && error?.body == nil)
            }
        }
    }

    @Test func descriptionsNeverPrintCredentialsOrCookies() async throws {
        try await withServerAndManager { server, manager in
            var components = URLComponents(url: server.url("/status/500"), resolvingAgainstBaseURL: false)!
            components.user = "alice"
            components.password = "pa55word"
            components.query = "token=qu3ry-secret"
            let client = HTTPClient(manager: manager)
            let error = await expectNetworkingError {
                try await client.get(components.url!, headers: [
                    "Authorization": "Bearer t0ken-secret",
                    "Cookie": "session=c00kie-secret",
                    "Proxy-Authorization": "Basic cHJveHk=",
                ], as: Document.self)
            }
            let unwrapped = try #require(error)
            #expect(unwrapped.kind == .unacceptableStatusCode(500))
            #expect(unwrapped.request?.value(forHTTPHeaderField: "Authorization") == "Bearer t0ken-secret", "the request keeps them")
            for text in [unwrapped.description, unwrapped.debugDescription, "\(unwrapped)", String(reflecting: unwrapped)] {
                for secret in ["t0ken-secret", "c00kie-secret", "cHJveHk=", "pa55word", "qu3ry-secret", "alice"] {
                    #expect(!text.contains(secret), "\(secret) leaked into: \(text)")
                }
                #expect(text.contains("status 500"))
            }
        }
    }

    @Test func serializationErrorsDescribeTheFailure() throws {
        let error = #expect(throws: NetworkingError.self) {
            try DecodableResponseSerializer(Document.self).serialize(
                Data("{}".utf8), response: makeResponse(contentType: "application/json"), request: makeRequest()
            )
        }
        #expect(error?.description.hasPrefix("NetworkingError.responseSerializationFailed") == true)
        #expect(error?.debugDescription.contains("body 2 bytes") == true)
    }
}
