@testable import AsyncNetworkingTestSupport

/// Policies per host, redirects, connection reuse across policies, HTTPS-only, the URLSession
/// transport failing closed, and mutual TLS — against real TLS servers.
@Suite(.serialized, .enabled(if: TestPKI.isAvailable, "needs the openssl and python3 commands"))
struct SecurityPolicyRoutingTests {
    @Test func aConnectionMadeUnderDisabledIsNotReusedByDefault() async throws {
        try await withTLSServer("self", policy: .disabled) { server, manager, _ in
            try await expectAccepted(manager, server.url())
            await manager.setSecurityPolicy(.default)
            await expectTrustFailure(manager, server, .untrustedRoot)
            #expect(server.requests.count == 1)
            // The server logs the failed handshake after the client gave up on it: wait for the line.
            #expect(await eventually { server.log.filter { $0.hasPrefix("HANDSHAKE") }.count == 2 }, "a new connection was made: \(server.log)")
        }
    }

    @Test func aVerifiedConnectionIsNotReusedUnderAnotherPin() async throws {
        let pki = try await TestPKI.make()
        let roots = [try pki.certificate("ca.pem")]
        try await withTLSServer("good", policy: .customRoots(roots)) { server, manager, _ in
            try await expectAccepted(manager, server.url())
            try await expectAccepted(manager, server.url()) // kept alive: same connection
            #expect(server.requests.allSatisfy { $0.hasSuffix("connection=1") }, "\(server.requests)")
            await manager.setSecurityPolicy(.pinnedPublicKeys([try pki.pin("rekeyed")], roots: roots))
            let error = await expectNetworkingError { try await postSecret(manager, server.url()) }
            #expect(error?.kind == .serverTrustFailed(host: "127.0.0.1", reason: .publicKeyPinMismatch))
            #expect(server.requests.count == 2)
        }
    }

    @Test func perHostPolicyWinsOverTheDefault() async throws {
        let pki = try await TestPKI.make()
        try await withTLSServer("good") { server, manager, _ in
            await manager.setSecurityPolicy(.customRoots([try pki.certificate("ca.pem")]), forHost: "LOCALHOST")
            #expect(await manager.securityPolicy(forHost: "localhost") != .default)
            try await expectAccepted(manager, server.url(host: "localhost"))
            await expectTrustFailure(manager, server, host: "127.0.0.1", .untrustedRoot) // unlisted: the default
            await manager.setSecurityPolicy(nil, forHost: "localhost")
            await expectTrustFailure(manager, server, host: "localhost", .untrustedRoot)
        }
    }

    @Test func aRedirectFromAPinnedHostIsJudgedByTheNewHostsPolicy() async throws {
        let pki = try await TestPKI.make()
        let pinned = SecurityPolicy.pinnedPublicKeys([try pki.pin("good")], roots: [try pki.certificate("ca.pem")])
        try await withTLSServer("good", policy: .default) { first, manager, _ in
            let second = try await pki.server("self")
            defer { second.stop() }
            await manager.setSecurityPolicy(pinned, forHost: "localhost")
            let redirect = first.url("/redirect?to=\(second.url("/landed"))", host: "localhost")
            // 127.0.0.1 has the default policy: the self-signed server is refused.
            var error = await expectNetworkingError { try await manager.data(from: redirect) }
            #expect(error?.kind == .serverTrustFailed(host: "127.0.0.1", reason: .untrustedRoot), "\(String(describing: error))")
            #expect(second.requests.isEmpty)
            // Trusted there by its own policy: followed.
            await manager.setSecurityPolicy(.customRoots([try pki.certificate("self.pem")]), forHost: "127.0.0.1")
            let (body, _) = try await manager.data(from: redirect)
            #expect(String(decoding: body, as: UTF8.self).hasPrefix("ok GET /landed"))
            // Pinned the other way round: a redirect to a host whose pin does not match.
            await manager.setSecurityPolicy(.pinnedPublicKeys([try pki.pin("rekeyed")], roots: [try pki.certificate("self.pem")]), forHost: "127.0.0.1")
            error = await expectNetworkingError { try await manager.data(from: redirect) }
            #expect(error?.kind == .serverTrustFailed(host: "127.0.0.1", reason: .publicKeyPinMismatch))
            #expect(second.requests.count == 1)
        }
    }

    @Test func httpsOnlyRefusesCleartextExceptLoopback() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager(transport: .curl, securityPolicy: SecurityPolicy(requiresHTTPS: true))
        let error = await expectNetworkingError { try await manager.data(from: URL(string: "http://example.invalid/")!) }
        #expect(error?.kind == .cleartextRefused)
        // Loopback is allowed in cleartext.
        let (_, response) = try await withDeadline { try await manager.data(from: URL(string: "http://127.0.0.1:\(server.port)/status/200")!) }
        #expect(response.statusCode == 200)
        await manager.invalidateAndCancel()
    }

    @Test func httpsOnlyRefusesARedirectToCleartext() async throws {
        let pki = try await TestPKI.make()
        let policy = SecurityPolicy(evaluation: .customRoots([try pki.certificate("ca.pem")]), requiresHTTPS: true)
        try await withTLSServer("good", policy: policy) { server, manager, _ in
            let error = await expectNetworkingError {
                try await manager.data(from: server.url("/redirect?to=http://example.invalid/next"))
            }
            #expect(error?.kind == .cleartextRefused)
        }
    }

    @Test(arguments: [SecurityPolicy.disabled, .customRoots([]), SecurityPolicy(validatesDomainName: false)])
    func urlSessionTransportFailsClosed(policy: SecurityPolicy) async throws {
        try await withTLSServer("good", policy: policy, transport: .urlSession) { server, manager, _ in
            let error = await expectNetworkingError { try await postSecret(manager, server.url()) }
            #expect(error?.kind == .securityPolicyUnsupported)
            #expect(!server.log.contains { $0.hasPrefix("HANDSHAKE") }, "\(server.log)")
        }
    }

    @Test func mutualTLSWithAndWithoutAnIdentity() async throws {
        let pki = try await TestPKI.make()
        let roots = [try pki.certificate("ca.pem")]
        try await withTLSServer("good", clientCA: "clientca.pem", policy: .customRoots(roots)) { server, manager, _ in
            // No identity: the server refuses the handshake.
            let refused = await expectNetworkingError { try await postSecret(manager, server.url()) }
            #expect(refused?.kind == .clientCertificateRejected(host: "127.0.0.1"), "\(String(describing: refused))")
            #expect(server.requests.isEmpty)
            // An identity the server's client CA did not issue.
            var policy = SecurityPolicy.customRoots(roots)
            policy.clientIdentity = ClientIdentity(certificateFile: pki.file("good.pem"), keyFile: pki.file("good.key"))
            await manager.setSecurityPolicy(policy)
            let untrusted = await expectNetworkingError { try await postSecret(manager, server.url()) }
            #expect(untrusted?.kind == .clientCertificateRejected(host: "127.0.0.1"), "\(String(describing: untrusted))")
            #expect(server.requests.isEmpty)
            // A plain key.
            policy.clientIdentity = ClientIdentity(certificateFile: pki.file("client.pem"), keyFile: pki.file("client.key"))
            await manager.setSecurityPolicy(policy)
            try await expectAccepted(manager, server.url())
            #expect(server.log.contains { $0.hasPrefix("HANDSHAKE-OK peer=test client") })
            // An encrypted key with its passphrase, then with a wrong one.
            policy.clientIdentity = ClientIdentity(
                certificateFile: pki.file("client.pem"), keyFile: pki.file("client-encrypted.key"), passphrase: TestPKI.clientKeyPassphrase
            )
            await manager.setSecurityPolicy(policy)
            try await expectAccepted(manager, server.url())
            // (A new manager: curl may reuse the connection the right passphrase opened — same
            // certificate and key files — which proves nothing about the server.)
            policy.clientIdentity?.passphrase = "wrong"
            let fresh = SessionManager(transport: .curl, securityPolicy: policy)
            let wrong = await expectNetworkingError { try await postSecret(fresh, server.url()) }
            await fresh.invalidateAndCancel()
            #expect(wrong?.kind == .clientIdentityFailed, "\(String(describing: wrong))")
        }
    }
}
