import Foundation
import AsyncNetworking

/// A throwaway PKI made once per test process with the `openssl` command, in a temporary
/// directory: a root CA and an intermediate; leaves for 127.0.0.1 / localhost signed by the
/// intermediate (good, re-keyed with the same names, wrong name, expired), a self-signed leaf, an
/// unrelated root, and a client CA with a client certificate (plain key, and an encrypted copy).
/// Servers present leaf + intermediate (the `*-chain.pem` files).
struct TestPKI: Sendable {
    let directory: URL

    /// Whether `openssl` and `python3` (the TLS test server) are on the `PATH`.
    static let isAvailable: Bool = ["openssl", "python3"].allSatisfy { tool in
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    /// The process's PKI (made at first use; the error, if making it failed).
    static let shared: Result<TestPKI, TLSTestError> = {
        do { return .success(try TestPKI()) } catch { return .failure(TLSTestError("\(error)")) }
    }()

    /// The shared PKI, made (by openssl, once) on a thread of its own.
    static func make() async throws -> TestPKI { try await offThePool { try shared.get() } }

    /// The passphrase of `client-encrypted.key`.
    static let clientKeyPassphrase = "correct horse"

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("an-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(Self.script.utf8).write(to: directory.appendingPathComponent("make.sh"))
        let (status, output) = try Subprocess.run("/bin/sh", ["make.sh", Self.clientKeyPassphrase], in: directory.path)
        guard status == 0 else {
            throw TLSTestError("making the test PKI failed: \(output)")
        }
    }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    func certificate(_ name: String) throws -> Certificate {
        try Certificate.certificates(contentsOf: file(name))[0]
    }

    /// The `sha256//` pin of `name.pem`'s public key, as openssl computed it.
    func pin(_ name: String) throws -> PublicKeyPin {
        try PublicKeyPin(String(decoding: try Data(contentsOf: file("\(name).pin")), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Starts a TLS server presenting `leaf` (`leaf-chain.pem` if it exists, else `leaf.pem`).
    /// Started on a thread of its own (it waits for the python peer to listen).
    func server(_ leaf: String, clientCA: String? = nil) async throws -> TLSTestServer {
        let chain = FileManager.default.fileExists(atPath: file("\(leaf)-chain.pem").path) ? "\(leaf)-chain.pem" : "\(leaf).pem"
        return try await offThePool { [self] in
            try TLSTestServer(
                certificateChain: file(chain), key: file("\(leaf).key"), clientCA: clientCA.map { file($0) }, in: directory
            )
        }
    }

    private static let script = #"""
    set -e
    PASS="$1"
    key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
    cat > ext.cnf <<'EOF'
    [ca]
    basicConstraints=critical,CA:TRUE
    keyUsage=critical,keyCertSign,cRLSign
    [leaf]
    basicConstraints=CA:FALSE
    subjectAltName=IP:127.0.0.1,DNS:localhost
    extendedKeyUsage=serverAuth
    [wrong]
    basicConstraints=CA:FALSE
    subjectAltName=DNS:wrong.example
    extendedKeyUsage=serverAuth
    [client]
    basicConstraints=CA:FALSE
    extendedKeyUsage=clientAuth
    EOF
    root() { key "$1.key"; openssl req -x509 -new -key "$1.key" -out "$1.pem" -days 3 -subj "/CN=$2" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null; }
    sign() { # name issuer section days cn
      key "$1.key"
      openssl req -new -key "$1.key" -out "$1.csr" -subj "/CN=$5" 2>/dev/null
      openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -out "$1.pem" -days "$4" -extfile ext.cnf -extensions "$3" 2>/dev/null
    }
    root ca "AsyncNetworking Test Root"
    root other "Unrelated Test Root"
    root clientca "AsyncNetworking Client CA"
    sign intermediate ca ca 3 "AsyncNetworking Test Intermediate"
    sign good intermediate leaf 3 localhost
    sign rekeyed intermediate leaf 3 localhost
    sign wrongname intermediate wrong 3 wrong.example
    sign expired intermediate leaf -1 localhost
    sign client clientca client 3 "test client"
    for leaf in good rekeyed wrongname expired; do cat "$leaf.pem" intermediate.pem > "$leaf-chain.pem"; done
    key self.key
    openssl req -x509 -new -key self.key -out self.pem -days 3 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost 2>/dev/null
    openssl pkey -in client.key -out client-encrypted.key -aes256 -passout "pass:$PASS"
    for cert in good rekeyed self; do
      openssl x509 -in "$cert.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | openssl base64 -A > "$cert.pin"
    done
    openssl x509 -in self.pem -outform der -out self.der
    """#
}
