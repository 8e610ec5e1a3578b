import Foundation
import Synchronization
import Testing
import AsyncNetworking

/// A real TLS server on 127.0.0.1 for the security tests: a small Python script (python3's `ssl`,
/// OpenSSL underneath) run as a child process. HTTP/1.1 with keep-alive; every handshake and
/// every request (with how many body bytes arrived) is logged, so a test can check what the
/// server saw. `GET /redirect?to=URL` answers 302 to `URL`; anything else answers 200 with
/// `ok METHOD PATH connection N`. With a client CA it requires a client certificate (mutual TLS).
final class TLSTestServer: Sendable {
    private let peer: LoggingPythonPeer

    /// Starts the server and waits (up to ``hangDeadline``) until it listens.
    init(certificateChain: URL, key: URL, clientCA: URL? = nil, in directory: URL) throws {
        peer = try LoggingPythonPeer(
            script: Self.script, scriptName: "tls_server.py", in: directory,
            arguments: [certificateChain.path, key.path, clientCA?.path ?? "-"],
            failure: "the TLS test server did not start"
        )
    }

    /// The port it listens on.
    var port: Int { peer.port }

    /// `https://127.0.0.1:PORT` + `path` (or `https://HOST:PORT` + `path`).
    func url(_ path: String = "/", host: String = "127.0.0.1") -> URL {
        URL(string: "https://\(host):\(port)\(path)")!
    }

    /// The log lines so far: `HANDSHAKE-OK peer=CN`, `HANDSHAKE-FAILED reason`,
    /// `REQUEST METHOD PATH body=N connection=N`.
    var log: [String] { peer.log }

    /// The `REQUEST` lines so far.
    var requests: [String] { log.filter { $0.hasPrefix("REQUEST ") } }

    /// Kills the server and reaps it.
    func stop() { peer.stop() }

    static let script = LoggingPythonPeer.preamble + #"""
    import ssl
    cert, key, client_ca = sys.argv[1:4]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    if client_ca != "-":
        ctx.load_verify_locations(client_ca)
        ctx.verify_mode = ssl.CERT_REQUIRED
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    counter = [0]
    def read_line(conn, buf):
        line = read_until(conn, buf, b"\r\n")
        return None if line is None else line.decode("latin-1")
    def serve(raw, number):
        conn = accept_tls(ctx, raw)
        if conn is None:
            return
        peer = conn.getpeercert()
        cn = "-"
        if peer:
            cn = dict(x[0] for x in peer.get("subject", ())).get("commonName", "?")
        log("HANDSHAKE-OK peer=%s connection=%d" % (cn, number))
        buf = [b""]
        try:
            while True:
                line = read_line(conn, buf)
                if not line:
                    break
                method, path = line.split(" ")[0:2]
                headers = {}
                while True:
                    h = read_line(conn, buf)
                    if h is None or h == "":
                        break
                    name, _, value = h.partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = 0
                if "content-length" in headers:
                    body = len(read_exact(conn, buf, int(headers["content-length"])))
                elif headers.get("transfer-encoding", "").lower() == "chunked":
                    while True:
                        size = int(read_line(conn, buf).split(";")[0], 16)
                        body += len(read_exact(conn, buf, size))
                        read_line(conn, buf)
                        if size == 0:
                            break
                log("REQUEST %s %s body=%d connection=%d" % (method, path, body, number))
                if path.startswith("/redirect?to="):
                    head = "HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n" % path[len("/redirect?to="):]
                    conn.sendall(head.encode("latin-1"))
                else:
                    payload = ("ok %s %s connection %d" % (method, path, number)).encode()
                    head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % len(payload)
                    conn.sendall(head.encode("latin-1") + payload)
        except Exception as e:
            log("CONNECTION-ERROR " + str(e).replace("\n", " "))
        finally:
            try:
                conn.close()
            except Exception:
                pass
    log("PORT %d" % listener.getsockname()[1])
    while True:
        raw, _ = listener.accept()
        counter[0] += 1
        threading.Thread(target=serve, args=(raw, counter[0]), daemon=True).start()
    """#
}

struct TLSTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
