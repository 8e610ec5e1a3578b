@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// The pure parts of the security layer: pins, PEM, the host table, the curl options a policy
/// becomes, and how libcurl's TLS failures are classified.
@Suite struct SecurityPolicyValueTests {
    @Test func pinsParseWithOrWithoutPrefix() throws {
        let digest = Data(repeating: 7, count: 32)
        let pin = try PublicKeyPin("sha256//" + digest.base64EncodedString())
        #expect(pin.sha256 == digest)
        #expect(try PublicKeyPin(digest.base64EncodedString()) == pin)
        #expect(pin.description == "sha256//" + digest.base64EncodedString())
        #expect(throws: NetworkingError.self) { try PublicKeyPin("sha256//AAAA") }
        #expect(throws: NetworkingError.self) { try PublicKeyPin("not base64!") }
    }

    @Test func sha256KnownAnswers() {
        #expect(SHA256.digest(Data()).base64EncodedString() == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
        #expect(SHA256.digest(Data("abc".utf8)).map { String(format: "%02x", $0) }.joined()
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Data(repeating: 0x61, count: 1_000) // crosses many blocks
        #expect(SHA256.digest(long).map { String(format: "%02x", $0) }.joined()
            == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func pinOfANonCertificateIsRefused() {
        #expect(throws: NetworkingError.self) { try PublicKeyPin(certificate: Certificate(der: Data([0x30, 0x03, 0x02, 0x01, 0x00]))) }
        #expect(throws: NetworkingError.self) { try PublicKeyPin(certificate: Certificate(der: Data([0x30, 0x85]))) }
    }

    @Test func pemRoundTripsAndRejectsGarbage() throws {
        let der = Data((0..<200).map { UInt8($0 % 251) })
        let certificate = Certificate(der: der)
        let two = try Certificate.certificates(pem: "junk\n" + certificate.pemEncoded + "between\n" + certificate.pemEncoded)
        #expect(two == [certificate, certificate])
        #expect(certificate.pemEncoded.split(separator: "\n").allSatisfy { $0.count <= 64 || $0.hasPrefix("-----") })
        #expect(throws: NetworkingError.self) { try Certificate(pem: "no certificate here") }
        #expect(throws: NetworkingError.self) { try Certificate(pem: "-----BEGIN CERTIFICATE-----\n@@@\n-----END CERTIFICATE-----") }
    }

    @Test func hostTableExactThenWildcardThenDefault() {
        var table = SecurityPolicyTable(defaultPolicy: .default)
        table.byHost["api.example.com"] = .disabled
        table.byHost["*.example.com"] = .customRoots([])
        table.byHost["::1"] = .pinnedCertificates([])
        #expect(table.policy(forHost: "API.example.com.") == .disabled)
        #expect(table.policy(forHost: "a.b.example.com") == .customRoots([]))
        #expect(table.policy(forHost: "example.com") == .default)
        #expect(table.policy(forHost: "[::1]") == .pinnedCertificates([]))
        #expect(table.policy(forHost: nil) == .default)
    }

    @Test func loopbackHosts() {
        for host in ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "a.localhost"] {
            #expect(SecurityPolicyTable.isLoopback(host), "\(host)")
        }
        for host in ["example.com", "128.0.0.1", "127.0.0.1.example.com", "localhost.example.com", "10.0.0.1"] {
            #expect(!SecurityPolicyTable.isLoopback(host), "\(host)")
        }
    }

    @Test func policiesBecomeCurlOptions() throws {
        let pin = try PublicKeyPin(sha256: Data(repeating: 1, count: 32))
        let root = Certificate(der: Data([0x30, 1, 2]))
        #expect(CurlTLSOptions(policy: .default) == CurlTLSOptions())
        let disabled = CurlTLSOptions(policy: .disabled)
        #expect(!disabled.verifiesPeer && !disabled.verifiesHost && disabled.isolatesConnection)
        let pinned = CurlTLSOptions(policy: .pinnedPublicKeys([pin, pin], roots: [root]))
        #expect(pinned.pinnedPublicKeys == "\(pin);\(pin)")
        #expect(pinned.trustedRootsPEM == Data(root.pemEncoded.utf8))
        #expect(pinned.verifiesPeer && pinned.verifiesHost)
        var lenient = SecurityPolicy.customRoots([root])
        lenient.validatesDomainName = false
        #expect(!CurlTLSOptions(policy: lenient).verifiesHost)
        #expect(CurlTLSOptions(policy: .pinnedCertificates([root])).trustedRootsPEM != nil)
    }

    @Test func curlFailuresAreClassified() {
        func reason(_ code: Int32, _ message: String, _ evaluation: SecurityPolicy.Evaluation = .default) -> ServerTrustClassifier.Outcome {
            ServerTrustClassifier.classify(code: code, message: message, evaluation: evaluation)
        }
        #expect(reason(90, "SSL: public key does not match pinned public key") == .server(.publicKeyPinMismatch))
        #expect(reason(60, "SSL certificate problem: certificate has expired") == .server(.expired))
        #expect(reason(60, "SSL certificate problem: certificate is not yet valid") == .server(.notYetValid))
        #expect(reason(60, "SSL: no alternative certificate subject name matches target host name '127.0.0.1'") == .server(.hostNameMismatch))
        #expect(reason(60, "SSL certificate problem: self-signed certificate") == .server(.untrustedRoot))
        #expect(reason(60, "SSL certificate problem: unable to get local issuer certificate") == .server(.untrustedRoot))
        #expect(reason(60, "SSL certificate problem: unable to get local issuer certificate", .pinnedCertificates([])) == .server(.certificatePinMismatch))
        #expect(reason(60, "SSL certificate problem: certificate revoked") == .server(.invalidChain))
        #expect(reason(35, "OpenSSL SSL_connect: SSL_ERROR_SYSCALL") == .server(.handshakeFailed))
        #expect(reason(58, "could not load PEM client certificate") == .clientIdentity)
        #expect(reason(7, "Couldn't connect to server") == .notTLS)
        #expect(reason(56, "Connection reset by peer") == .notTLS)
        #expect(reason(56, "OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0") == .clientRejected)
        #expect(reason(35, "error:0A000418:SSL routines::tlsv1 alert unknown ca") == .clientRejected)
    }
}
