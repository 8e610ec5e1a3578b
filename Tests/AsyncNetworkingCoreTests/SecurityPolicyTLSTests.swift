@testable import AsyncNetworkingTestSupport

/// Runs `body` against a TLS server presenting `leaf`, with a curl manager under `policy`; stops
/// both afterwards, within a deadline that only catches hangs.
func withTLSServer(
    _ leaf: String, clientCA: String? = nil, policy: SecurityPolicy = .default,
    transport: SessionManager.Transport = .curl,
    _ body: @escaping @Sendable (TLSTestServer, SessionManager, TestPKI) async throws -> Void
) async throws {
    let pki = try await TestPKI.make()
    let server = try await pki.server(leaf, clientCA: clientCA)
    defer { server.stop() }
    let manager = SessionManager(transport: transport, securityPolicy: policy)
    do {
        try await withDeadline { try await body(server, manager, pki) }
    } catch {
        await manager.invalidateAndCancel()
        throw error
    }
    await manager.invalidateAndCancel()
}

/// POSTs a small body; returns the response text.
@discardableResult
func postSecret(_ manager: SessionManager, _ url: URL) async throws -> String {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    let (data, _) = try await manager.upload(for: request, from: Data("secret-body".utf8))
    return String(decoding: data, as: UTF8.self)
}

/// Expects the POST to succeed (the server answers `ok POST ...`).
func expectAccepted(
    _ manager: SessionManager, _ url: URL, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let text = try await postSecret(manager, url)
    #expect(text.hasPrefix("ok POST /"), comment, sourceLocation: sourceLocation)
}

/// Expects the POST to fail with `serverTrustFailed(host:reason:)` and the server to have seen no
/// new request (no header, no body).
func expectTrustFailure(
    _ manager: SessionManager, _ server: TLSTestServer, host: String = "127.0.0.1", path: String = "/",
    _ reason: ServerTrustFailureReason, sourceLocation: SourceLocation = #_sourceLocation
) async {
    let before = server.requests.count
    let error = await expectNetworkingError({ try await postSecret(manager, server.url(path, host: host)) }, sourceLocation: sourceLocation)
    #expect(error?.kind == .serverTrustFailed(host: host, reason: reason), "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.message.contains(host) == true, sourceLocation: sourceLocation)
    #expect(server.requests.count == before, "the server saw \(server.requests)", sourceLocation: sourceLocation)
}

/// Each evaluation against real handshakes with `openssl`-made certificates (curl transport).
@Suite(.serialized, .enabled(if: TestPKI.isAvailable, "needs the openssl and python3 commands"))
struct SecurityPolicyTLSTests {
    @Test func defaultRejectsSelfSignedLeaf() async throws {
        try await withTLSServer("self") { server, manager, _ in
            await expectTrustFailure(manager, server, .untrustedRoot)
        }
    }

    @Test func defaultRejectsAPrivateCA() async throws {
        try await withTLSServer("good") { server, manager, _ in
            await expectTrustFailure(manager, server, .untrustedRoot)
        }
    }

    @Test func customRootAcceptsSelfSignedLeafAndChain() async throws {
        try await withTLSServer("self") { server, manager, pki in
            await manager.setSecurityPolicy(.customRoots([try pki.certificate("self.pem")]))
            try await expectAccepted(manager, server.url())
            #expect(server.requests.first?.contains("body=11") == true)
        }
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(.customRoots([try pki.certificate("ca.pem")]))
            try await expectAccepted(manager, server.url(host: "localhost"))
        }
    }

    @Test func customRootsRejectAnotherCA() async throws {
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(.customRoots([try pki.certificate("other.pem")]))
            await expectTrustFailure(manager, server, .untrustedRoot)
        }
    }

    @Test func publicKeyPinAcceptsTheKeyAndRejectsARekeyedCertificate() async throws {
        let pki = try await TestPKI.make()
        let policy = SecurityPolicy.pinnedPublicKeys([try pki.pin("good")], roots: [try pki.certificate("ca.pem")])
        try await withTLSServer("good", policy: policy) { server, manager, _ in
            try await expectAccepted(manager, server.url())
        }
        try await withTLSServer("rekeyed", policy: policy) { server, manager, _ in
            // Same names, same CA, a new key.
            await expectTrustFailure(manager, server, .publicKeyPinMismatch)
        }
        // Either of two pins (the current key and the next).
        let both = SecurityPolicy.pinnedPublicKeys([try pki.pin("good"), try pki.pin("rekeyed")], roots: [try pki.certificate("ca.pem")])
        try await withTLSServer("rekeyed", policy: both) { server, manager, _ in
            try await expectAccepted(manager, server.url())
        }
    }

    @Test func pinsComputedFromCertificatesMatchOpenSSL() async throws {
        let pki = try await TestPKI.make()
        for name in ["good", "rekeyed", "self"] {
            #expect(try PublicKeyPin(certificate: pki.certificate("\(name).pem")) == (try pki.pin(name)), "\(name)")
        }
        let policy = SecurityPolicy.pinnedPublicKeys([try PublicKeyPin(certificate: pki.certificate("good.pem"))], roots: [try pki.certificate("ca.pem")])
        try await withTLSServer("good", policy: policy) { server, manager, _ in
            try await expectAccepted(manager, server.url())
        }
    }

    @Test func publicKeyPinStillNeedsATrustedChain() async throws {
        let pki = try await TestPKI.make()
        try await withTLSServer("good", policy: .pinnedPublicKeys([try pki.pin("good")])) { server, manager, _ in
            await expectTrustFailure(manager, server, .untrustedRoot) // the system does not trust the test CA
        }
    }

    @Test func certificatePinMatchesLeafOrChainMember() async throws {
        let pki = try await TestPKI.make()
        for pinned in ["good.pem", "intermediate.pem", "ca.pem"] {
            try await withTLSServer("good", policy: .pinnedCertificates([try pki.certificate(pinned)])) { server, manager, _ in
                try await expectAccepted(manager, server.url(), "pinned \(pinned)")
            }
        }
        // A pinned self-signed leaf loaded from DER.
        let der = try Certificate.certificates(contentsOf: pki.file("self.der"))
        try await withTLSServer("self", policy: .pinnedCertificates(der)) { server, manager, _ in
            try await expectAccepted(manager, server.url())
        }
    }

    @Test func certificatePinRejectsAnotherChain() async throws {
        let pki = try await TestPKI.make()
        try await withTLSServer("good", policy: .pinnedCertificates([try pki.certificate("self.pem")])) { server, manager, _ in
            await expectTrustFailure(manager, server, .certificatePinMismatch)
        }
        try await withTLSServer("rekeyed", policy: .pinnedCertificates([try pki.certificate("good.pem")])) { server, manager, _ in
            await expectTrustFailure(manager, server, .certificatePinMismatch)
        }
    }

    @Test func wrongHostNameWithAndWithoutDomainValidation() async throws {
        let pki = try await TestPKI.make()
        try await withTLSServer("wrongname", policy: .customRoots([try pki.certificate("ca.pem")])) { server, manager, _ in
            await expectTrustFailure(manager, server, .hostNameMismatch)
            var lenient = SecurityPolicy.customRoots([try pki.certificate("ca.pem")])
            lenient.validatesDomainName = false
            await manager.setSecurityPolicy(lenient)
            try await expectAccepted(manager, server.url())
        }
    }

    @Test func expiredCertificate() async throws {
        let pki = try await TestPKI.make()
        try await withTLSServer("expired", policy: .customRoots([try pki.certificate("ca.pem")])) { server, manager, _ in
            await expectTrustFailure(manager, server, .expired)
        }
    }

    @Test func disabledAcceptsEverything() async throws {
        for leaf in ["self", "expired", "wrongname", "good"] {
            try await withTLSServer(leaf, policy: .disabled) { server, manager, _ in
                try await expectAccepted(manager, server.url(), "\(leaf)")
            }
        }
    }

    @Test func emptyPinListFailsClosedBeforeConnecting() async throws {
        try await withTLSServer("good", policy: .pinnedPublicKeys([])) { server, manager, _ in
            let error = await expectNetworkingError { try await postSecret(manager, server.url()) }
            #expect(error?.kind == .invalidCertificate)
            #expect(!server.log.contains { $0.hasPrefix("HANDSHAKE") })
        }
    }
}
