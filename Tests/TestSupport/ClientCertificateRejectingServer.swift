import Foundation
import Synchronization
import AsyncNetworking

/// A TLS server on 127.0.0.1 that requires a client certificate from `clientca.pem` and ends every
/// connection whose client has none (or an untrusted one) the way `mode` says — the server sides
/// seen in the wild (python3's `ssl`, OpenSSL underneath; a child process):
///
/// - `close`: closes right after the handshake fails (python `ssl` does; the alert is sent, and
///   the close resets the connection if the client's request is unread);
/// - `reset`: sends the alert, then resets the connection (`SO_LINGER` 0);
/// - `linger`: sends the alert and keeps reading for 2 s (`openssl s_server -Verify 1` does).
///
/// `tls12` caps the protocol at TLS 1.2 (the refusal then happens inside the handshake); else
/// TLS 1.3 only. A client with a trusted certificate gets `200 accepted`.
final class ClientCertificateRejectingServer: Sendable {
    private let peer: LoggingPythonPeer

    /// Starts the server on a thread of its own (it waits for the python peer to listen).
    static func started(pki: TestPKI, mode: String, tls12: Bool = false) async throws -> ClientCertificateRejectingServer {
        try await offThePool { try ClientCertificateRejectingServer(pki: pki, mode: mode, tls12: tls12) }
    }

    init(pki: TestPKI, mode: String, tls12: Bool = false) throws {
        peer = try LoggingPythonPeer(
            script: Self.script, scriptName: "reject_server.py", in: pki.directory,
            arguments: [
                pki.file("good-chain.pem").path, pki.file("good.key").path, pki.file("clientca.pem").path,
                mode, tls12 ? "1.2" : "1.3",
            ],
            failure: "the client-certificate test server did not start"
        )
    }

    /// The port it listens on.
    var port: Int { peer.port }

    func url(_ path: String = "/") -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// `HANDSHAKE-FAILED …`, `HANDSHAKE-OK`, `REQUEST …` lines so far.
    var log: [String] { peer.log }

    /// Kills the server and reaps it.
    func stop() { peer.stop() }

    static let script = LoggingPythonPeer.preamble + #"""
    import ssl
    cert, key, client_ca, mode, version = sys.argv[1:6]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.load_verify_locations(client_ca)
    ctx.verify_mode = ssl.CERT_REQUIRED
    if version == "1.3":
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    else:
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    def serve(raw):
        conn = accept_tls(ctx, raw, mode)
        if conn is None:
            return
        log("HANDSHAKE-OK")
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(rest) < length:  # read the whole body: closing with unread bytes would reset
                chunk = conn.recv(65536)
                if not chunk:
                    break
                rest += chunk
            log("REQUEST " + head.split(b"\r\n", 1)[0].decode("latin-1"))
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\naccepted")
        except Exception as e:
            log("CONNECTION-ERROR " + str(e))
        finally:
            conn.close()
    log("PORT %d" % listener.getsockname()[1])
    while True:
        raw, _ = listener.accept()
        threading.Thread(target=serve, args=(raw,), daemon=True).start()
    """#
}
