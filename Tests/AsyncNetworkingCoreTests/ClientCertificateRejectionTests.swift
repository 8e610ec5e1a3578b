@testable import TransportSeam
@testable import AsyncNetworkingTestSupport

/// The rule: when the server requires a client certificate and refuses ours (or
/// its absence), the caller gets `.clientCertificateRejected(host:)` every time, however the server
/// ends the connection — an alert then a close, a reset, or a server that lingers — and whether the
/// request was written before the alert arrived or not (curl transport; the URLSession transport
/// on Linux cannot present an identity nor trust a private CA, so it never gets this far).
@Suite(.enabled(if: TestPKI.isAvailable, "needs the openssl and python3 commands"))
struct ClientCertificateRejectionTests {
    /// The failure was intermittent (a race between curl's write and the server's alert): each
    /// variant runs this many times.
    static let iterations = 10

    @Test(arguments: ["close", "reset", "linger"], [false, true])
    func refusedEveryTimeOverTLS13(mode: String, presentsUntrustedIdentity: Bool) async throws {
        try await expectRejectedEveryTime(mode: mode, tls12: false, presentsUntrustedIdentity: presentsUntrustedIdentity)
    }

    @Test(arguments: ["close", "reset"], [false, true])
    func refusedEveryTimeOverTLS12(mode: String, presentsUntrustedIdentity: Bool) async throws {
        try await expectRejectedEveryTime(mode: mode, tls12: true, presentsUntrustedIdentity: presentsUntrustedIdentity)
    }

    /// The same servers accept a certificate from their client CA: the classification never turns
    /// an accepted connection into a refusal.
    @Test(arguments: ["close", "reset", "linger"])
    func aTrustedIdentityIsAccepted(mode: String) async throws {
        let pki = try await TestPKI.make()
        let server = try await ClientCertificateRejectingServer.started(pki: pki, mode: mode)
        defer { server.stop() }
        var policy = SecurityPolicy.customRoots([try pki.certificate("ca.pem")])
        policy.clientIdentity = ClientIdentity(certificateFile: pki.file("client.pem"), keyFile: pki.file("client.key"))
        let manager = SessionManager(transport: .curl, securityPolicy: policy)
        let text = try await withDeadline { try await postSecret(manager, server.url()) }
        await manager.invalidateAndCancel()
        #expect(text == "accepted")
    }

    private func expectRejectedEveryTime(mode: String, tls12: Bool, presentsUntrustedIdentity: Bool) async throws {
        let pki = try await TestPKI.make()
        let server = try await ClientCertificateRejectingServer.started(pki: pki, mode: mode, tls12: tls12)
        defer { server.stop() }
        var policy = SecurityPolicy.customRoots([try pki.certificate("ca.pem")])
        if presentsUntrustedIdentity {
            // A certificate the server's client CA did not issue.
            policy.clientIdentity = ClientIdentity(certificateFile: pki.file("good.pem"), keyFile: pki.file("good.key"))
        }
        let manager = SessionManager(transport: .curl, securityPolicy: policy)
        let outcomes = try await withDeadline {
            var outcomes: [String] = []
            for index in 0..<Self.iterations {
                // A POST (its request and body written at once after the handshake) and a GET, in turn.
                let error = await expectNetworkingError {
                    if index % 2 == 0 { return try await postSecret(manager, server.url()) }
                    return String(decoding: try await manager.data(from: server.url()).0, as: UTF8.self)
                }
                if error?.kind != .clientCertificateRejected(host: "127.0.0.1") {
                    outcomes.append("#\(index): \(String(describing: error))")
                }
            }
            return outcomes
        }
        await manager.invalidateAndCancel()
        #expect(outcomes.isEmpty, "mode \(mode), TLS \(tls12 ? "1.2" : "1.3"), identity \(presentsUntrustedIdentity): \(outcomes)")
        #expect(!server.log.contains { $0.hasPrefix("REQUEST") }, "\(server.log)")
    }
}

/// The classification rule as a table, without I/O (``TLSHandshakeNotes``).
@Suite struct TLSHandshakeNotesTests {
    @Test func bitsAreRead() {
        let notes = TLSHandshakeNotes(bits: 1 | 4 | 8 | (116 << 8))
        #expect(notes.certificateRequested && notes.sentCertificate && !notes.sentNoCertificate)
        #expect(notes.alert == 116)
        #expect(TLSHandshakeNotes(bits: 0) == TLSHandshakeNotes())
    }

    @Test(arguments: [Int32(7), 16, 35, 52, 55, 56, 92])
    func aConnectionThatEndsAfterTheServerAskedIsARejection(code: Int32) {
        var notes = TLSHandshakeNotes(bits: 1 | 2) // asked; we had none
        #expect(notes.showsClientCertificateRejection(code: code, responseStarted: false))
        #expect(!notes.showsClientCertificateRejection(code: code, responseStarted: true))
        notes = TLSHandshakeNotes(bits: 1 | 4) // asked; ours went, no alert could be read
        #expect(notes.showsClientCertificateRejection(code: code, responseStarted: false))
        notes = TLSHandshakeNotes(bits: 1 | 4 | 8 | (48 << 8)) // unknown_ca
        #expect(notes.showsClientCertificateRejection(code: code, responseStarted: false))
        notes = TLSHandshakeNotes(bits: 1 | 4 | 8 | (80 << 8)) // internal_error: not about the certificate
        #expect(!notes.showsClientCertificateRejection(code: code, responseStarted: false))
    }

    @Test(arguments: [Int32(28), 42, 60, 90, 18])
    func otherFailuresAreNot(code: Int32) {
        #expect(!TLSHandshakeNotes(bits: 1 | 2).showsClientCertificateRejection(code: code, responseStarted: false))
    }

    @Test func noRequestNoRejection() {
        #expect(!TLSHandshakeNotes(bits: 2).showsClientCertificateRejection(code: 55, responseStarted: false))
        #expect(!TLSHandshakeNotes().showsClientCertificateRejection(code: 56, responseStarted: false))
    }

    @Test func theClassifierUsesTheNotesAndCurlsClientCertCode() {
        let asked = TLSHandshakeNotes(bits: 1 | 2)
        let broken = ServerTrustClassifier.classify(
            code: 55, message: "SSL_write() returned SYSCALL, errno = 32", evaluation: .default, handshake: asked
        )
        #expect(broken == .clientRejected)
        #expect(ServerTrustClassifier.classify(code: 55, message: "Broken pipe", evaluation: .default) == .notTLS)
        #expect(ServerTrustClassifier.classify(code: 98, message: "", evaluation: .default) == .clientRejected)
    }
}
