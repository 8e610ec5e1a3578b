@testable import TransportSeam
@testable import AsyncNetworkingTestSupport

/// Error descriptions never print URL credentials, query values or credential header values.
@Suite struct ErrorRedactionTests {
    /// Every text a logger might print for `error`.
    static func texts(_ error: NetworkingError) -> [String] {
        [error.description, error.debugDescription, error.localizedDescription, "\(error)", String(reflecting: error)]
    }

    static func expectRedacted(_ error: NetworkingError?, path: String?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else { return }
        for text in texts(error) {
            #expect(!text.contains("secret"), "\(text)", sourceLocation: sourceLocation)
            #expect(!text.contains("TOPSECRET"), "\(text)", sourceLocation: sourceLocation)
            #expect(!text.contains("cookie-value"), "\(text)", sourceLocation: sourceLocation)
            if let path { #expect(text.contains(path), "\(text)", sourceLocation: sourceLocation) }
        }
    }

    @Test func connectionRefusedDoesNotPrintCredentialsOrQuery() async throws {
        try await withServerAndManager { _, manager in
            let client = HTTPClient(manager: manager)
            let error = await expectNetworkingError {
                try await client.get("http://user:secret@127.0.0.1:1/p/refused?access_token=TOPSECRET#secret", serializer: DataResponseSerializer())
            }
            #expect(error?.urlErrorCode != nil)
            Self.expectRedacted(error, path: "/p/refused")
        }
    }

    @Test func clientErrorStatusDoesNotPrintCredentialsOrQuery() async throws {
        try await withServerAndManager { server, manager in
            let client = HTTPClient(manager: manager)
            let url = "http://user:secret@127.0.0.1:\(server.port)/status/403?access_token=TOPSECRET"
            let error = await expectNetworkingError {
                try await client.get(url, headers: ["Cookie": "session=cookie-value", "Authorization": "Bearer TOPSECRET"], serializer: DataResponseSerializer())
            }
            #expect(error?.statusCode == 403)
            Self.expectRedacted(error, path: "/status/403")
        }
    }

    @Test func invalidURLMessagesDoNotPrintCredentialsOrQuery() throws {
        // Relative with no base URL: always rejected.
        do {
            _ = try "//user:secret@127.0.0.1/p/relative?access_token=TOPSECRET".resolved(against: nil)
            Issue.record("a relative reference without a base URL was accepted")
        } catch {
            Self.expectRedacted(error, path: "/p/relative")
        }
        // Strings URL parsing may reject (which ones differs between Foundations): whatever is
        // thrown must be redacted.
        let hostile = [
            "http://user:secret@127.0.0.1:99999999999/p/bad?access_token=TOPSECRET",
            "http://user:secret@[::1/p/bad?access_token=TOPSECRET",
            "ftp://user:secret@127.0.0.1/p/bad?access_token=TOPSECRET",
            "http://user:secret@/p/bad?access_token=TOPSECRET",
        ]
        for text in hostile {
            do {
                let client = HTTPClient()
                _ = try client.resolve(text)
            } catch {
                Self.expectRedacted(error, path: nil)
            }
        }
        let unsupported = NetworkingError(.unsupportedScheme("ftp"), request: URLRequest(url: URL(string: "ftp://user:secret@127.0.0.1/p/ftp?access_token=TOPSECRET")!))
        Self.expectRedacted(unsupported, path: "/p/ftp")
    }

    @Test func underlyingErrorsAndMessagesAreRedacted() {
        let url = URL(string: "http://user:secret@127.0.0.1:1/p/under?access_token=TOPSECRET")!
        let underlying = URLError(.cannotConnectToHost, userInfo: [
            NSURLErrorFailingURLErrorKey: url, "NSErrorFailingURLStringKey": url.absoluteString,
            NSLocalizedDescriptionKey: "could not connect to \(url.absoluteString)",
        ])
        let error = NetworkingError(
            .transport(.cannotConnectToHost), "could not connect to \(url.absoluteString) (Cookie: a=cookie-value)",
            request: URLRequest(url: url), underlyingError: underlying
        )
        Self.expectRedacted(error, path: "/p/under")
        struct Custom: Error, CustomStringConvertible {
            var description: String { "failed GET http://u:secret@h/p?access_token=TOPSECRET with Authorization: Bearer TOPSECRET" }
        }
        Self.expectRedacted(NetworkingError(.transport(.unknown), underlyingError: Custom()), path: nil)
    }

    @Test func redactionKeepsHostPortAndPath() {
        #expect(Redaction.urlString("http://user:secret@127.0.0.1:8080/a/b?x=1#f") == "http://127.0.0.1:8080/a/b?…")
        #expect(Redaction.urlString("user:secret@host/a") == "host/a")
        #expect(Redaction.urlString("/a/b@c/d") == "/a/b@c/d")
        #expect(Redaction.text("Authorization: Bearer abc") == "Authorization: <redacted>")
        #expect(Redaction.text("see http://h/p?token=1, then") == "see http://h/p?…, then")
    }
}

extension ErrorRedactionTests {
    static func expectRedacted(_ error: any Error, path: String?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = error as? NetworkingError else {
            Issue.record("expected a NetworkingError, got \(type(of: error))", sourceLocation: sourceLocation)
            return
        }
        expectRedacted(Optional(error), path: path, sourceLocation: sourceLocation)
    }
}
