import Foundation
import AsyncNetworking

/// ``EarlyAnswerServer`` over TLS: a python3 `ssl` server (the ``TestPKI`` leaf `good`) that
/// answers `POST /answer/STATUS` at once — `307`/`308` with `Location: /landed`, else `STATUS`
/// with the 5-byte body `early` — with `Connection: close`, *without reading the request body*,
/// shuts its side (the answer is on the wire) and closes (the unread body makes the kernel reset
/// the connection). `POST /hold/STATUS` answers the same way without `Connection: close` and
/// keeps the connection open, never reading from it again (as ``EarlyRedirectServer`` does over
/// cleartext). `/landed` reads the whole body (`Content-Length` or chunked) and answers `200`
/// with `got N`. Every request is logged as `REQUEST METHOD PATH body=N`.
final class EarlyAnswerTLSServer: Sendable {
    private let peer: LoggingPythonPeer

    /// Starts the server and waits (up to ``hangDeadline``) until it listens.
    init(pki: TestPKI) throws {
        peer = try LoggingPythonPeer(
            script: Self.script, scriptName: "early_answer_tls.py", in: pki.directory,
            arguments: [pki.file("good-chain.pem").path, pki.file("good.key").path],
            failure: "the early-answer TLS server did not start"
        )
    }

    /// `https://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(peer.port)\(path)")! }

    /// The `REQUEST` lines so far.
    var requests: [String] { peer.log.filter { $0.hasPrefix("REQUEST ") } }

    /// Kills the server.
    func stop() { peer.stop() }

    static let script = LoggingPythonPeer.preamble + #"""
    import ssl
    cert, key = sys.argv[1:3]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    def serve(raw):
        conn = accept_tls(ctx, raw, "close")
        if conn is None:
            return
        buf = [b""]
        try:
            head = read_until(conn, buf, b"\r\n\r\n")
            if head is None:
                return
            lines = head.decode("latin-1").split("\r\n")
            method, path = lines[0].split(" ")[0:2]
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            if path.startswith("/answer/") or path.startswith("/hold/"):
                log("REQUEST %s %s body=unread" % (method, path))
                status = int(path.split("/")[2])
                if status in (301, 302, 303, 307, 308):
                    answer = "HTTP/1.1 %d Moved\r\nLocation: /landed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" % status
                else:
                    answer = "HTTP/1.1 %d Early\r\nContent-Length: 5\r\nConnection: close\r\n\r\nearly" % status
                if path.startswith("/hold/"):
                    answer = answer.replace("Connection: close\r\n", "")
                conn.sendall(answer.encode())
                if path.startswith("/hold/"):
                    threading.Event().wait()  # never read again; ended when the server is killed
                # The answer goes out before the close resets the connection (a close with unread
                # data drops what the kernel has not sent yet: no client could read that answer).
                conn.shutdown(socket.SHUT_WR)
                return
            body = 0
            if headers.get("transfer-encoding", "").lower() == "chunked":
                while True:
                    size = int(read_until(conn, buf, b"\r\n").split(b";")[0], 16)
                    if size == 0:
                        while read_until(conn, buf, b"\r\n"):
                            pass
                        break
                    body += len(read_exact(conn, buf, size))
                    read_until(conn, buf, b"\r\n")
            else:
                body = len(read_exact(conn, buf, int(headers.get("content-length", "0"))))
            log("REQUEST %s %s body=%d" % (method, path, body))
            text = "got %d" % body
            conn.sendall(("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(text), text)).encode())
        except Exception:
            pass
        finally:
            try:
                conn.close()
            except Exception:
                pass
    log("PORT %d" % listener.getsockname()[1])
    while True:
        raw, _ = listener.accept()
        threading.Thread(target=serve, args=(raw,), daemon=True).start()
    """#
}
