import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import AsyncNetworking
#endif

/// A real forward proxy on 127.0.0.1 for the proxy tests: a Python 3 script (stdlib only) run as
/// a child process. One port speaks three protocols, told apart by the first byte: absolute-form
/// HTTP requests (forwarded to the origin without the hop-by-hop fields `Proxy-Authorization`,
/// `Proxy-Connection`, `Connection`, `Keep-Alive`, as a proxy must), `CONNECT host:port` tunnels,
/// and SOCKS5 (no auth, or RFC 1929 user/password when a credential is required). With a required
/// credential a request without it gets `407`. Every request is logged: `METHOD TARGET auth=VALUE
/// client=PORT authorization=VALUE` (`auth` is its `Proxy-Authorization`, `authorization` its
/// `Authorization`, `-` when absent), `SOCKS HOST PORT atyp=N client=PORT`, `SOCKS-DENIED`.
///
/// With `origin: true` it is instead a tiny HTTP/1.1 origin with keep-alive that answers every
/// request `200` with the body `client-port=N` (the port the request came from) and logs
/// `ORIGIN METHOD TARGET client=N`; `Connection: close` closes after the response.
final class ProxyTestServer: Sendable {
    private let peer: LoggingPythonPeer

    /// Starts the script on a thread of its own (it polls, up to ``hangDeadline``, until the
    /// script listens).
    static func started(requiring credential: ProxyCredential? = nil, origin: Bool = false) async throws -> ProxyTestServer {
        try await offThePool { try ProxyTestServer(requiring: credential, origin: origin) }
    }

    init(requiring credential: ProxyCredential? = nil, origin: Bool = false) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("an-proxy-tests", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let auth = credential.map { "\($0.user):\($0.password)" } ?? "-"
        peer = try LoggingPythonPeer(
            script: Self.script, scriptName: "proxy-\(UUID().uuidString).py", in: directory,
            arguments: [auth, origin ? "origin" : "proxy"], failure: "the proxy test server did not start"
        )
    }

    /// The port it listens on.
    var port: Int { peer.port }

    /// The log lines so far (see the type's description).
    var log: [String] { peer.log }

    /// `http://127.0.0.1:PORT` + `path` (origin mode).
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Kills the script (SIGKILL) and reaps it.
    func stop() { peer.stop() }

    static let script = LoggingPythonPeer.preamble + #"""
required_auth, mode = sys.argv[1], sys.argv[2]
HOP = {"proxy-authorization", "proxy-connection", "connection", "keep-alive"}
def read_head(conn, buf):
    head = read_until(conn, buf, b"\r\n\r\n")
    if head is None:
        return None
    lines = head.decode("latin-1").split("\r\n")
    headers = []
    for h in lines[1:]:
        name, _, value = h.partition(":")
        headers.append((name.strip(), value.strip()))
    return lines[0], headers
def get(headers, name):
    for n, v in headers:
        if n.lower() == name:
            return v
    return None
def pump(a, b):
    socks = [a, b]
    try:
        while True:
            ready, _, _ = select.select(socks, [], [], 60)
            if not ready:
                return
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except Exception:
        return
def authorized(headers):
    if required_auth == "-":
        return True
    value = get(headers, "proxy-authorization") or ""
    return value == "Basic " + base64.b64encode(required_auth.encode()).decode()
def deny(conn):
    conn.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
def socks(conn, client):
    head = conn.recv(2)
    methods = conn.recv(head[1])
    if required_auth != "-":
        if 2 not in methods:
            conn.sendall(b"\x05\xff"); return
        conn.sendall(b"\x05\x02")
        ver = conn.recv(1); ulen = conn.recv(1)[0]; user = conn.recv(ulen); plen = conn.recv(1)[0]; pw = conn.recv(plen)
        ok = (user + b":" + pw).decode() == required_auth
        conn.sendall(b"\x01\x00" if ok else b"\x01\x01")
        if not ok:
            log("SOCKS-DENIED client=%d" % client); return
    else:
        conn.sendall(b"\x05\x00")
    ver, cmd, _, atyp = conn.recv(4)
    if atyp == 1:
        host = socket.inet_ntoa(conn.recv(4))
    elif atyp == 3:
        n = conn.recv(1)[0]; host = conn.recv(n).decode()
    else:
        host = socket.inet_ntop(socket.AF_INET6, conn.recv(16))
    port = struct.unpack(">H", conn.recv(2))[0]
    log("SOCKS %s %d atyp=%d client=%d" % (host, port, atyp, client))
    try:
        upstream = socket.create_connection((host, port))
    except Exception:
        conn.sendall(b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00"); return
    conn.sendall(b"\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00")
    pump(conn, upstream)
    upstream.close()
def serve(conn, addr):
    client = addr[1]
    try:
        first = conn.recv(1, socket.MSG_PEEK)
        if not first:
            return
        if first == b"\x05":
            return socks(conn, client)
        buf = [b""]
        while True:
            got = read_head(conn, buf)
            if got is None:
                return
            line, headers = got
            method, target = line.split(" ")[0:2]
            auth = get(headers, "proxy-authorization") or "-"
            if mode == "origin":
                log("ORIGIN %s %s client=%d" % (method, target, client))
                body = ("client-port=%d" % client).encode()
                close = (get(headers, "connection") or "").lower() == "close"
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n%s\r\n" % (len(body), b"Connection: close\r\n" if close else b"") + body)
                if close:
                    return
                continue
            log("%s %s auth=%s client=%d authorization=%s" % (method, target, auth, client, get(headers, "authorization") or "-"))
            if not authorized(headers):
                deny(conn); return
            if method == "CONNECT":
                host, _, port = target.rpartition(":")
                upstream = socket.create_connection((host.strip("[]"), int(port)))
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if buf[0]:
                    upstream.sendall(buf[0])
                pump(conn, upstream)
                upstream.close()
                return
            rest = target.split("://", 1)[1]
            hostport, _, path = rest.partition("/")
            host, _, port = hostport.rpartition(":") if ":" in hostport else (hostport, "", "80")
            length = int(get(headers, "content-length") or "0")
            body = read_exact(conn, buf, length)
            upstream = socket.create_connection((host.strip("[]"), int(port)))
            out = "%s /%s HTTP/1.1\r\n" % (method, path)
            for n, v in headers:
                if n.lower() not in HOP:
                    out += "%s: %s\r\n" % (n, v)
            out += "Connection: close\r\n\r\n"
            upstream.sendall(out.encode("latin-1") + body)
            response = b""
            while True:
                chunk = upstream.recv(65536)
                if not chunk:
                    break
                response += chunk
            upstream.close()
            head, _, payload = response.partition(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            kept = [lines[0]] + [l for l in lines[1:] if l.split(b":")[0].strip().lower() not in (b"connection", b"keep-alive", b"transfer-encoding", b"content-length")]
            if b"chunked" in head.lower():
                decoded = b""; rest_ = payload
                while True:
                    size_line, _, rest_ = rest_.partition(b"\r\n")
                    size = int(size_line.split(b";")[0], 16)
                    if size == 0:
                        break
                    decoded += rest_[:size]; rest_ = rest_[size + 2:]
                payload = decoded
            kept.append(b"Content-Length: %d" % len(payload))
            kept.append(b"Via: 1.1 test-proxy")
            conn.sendall(b"\r\n".join(kept) + b"\r\n\r\n" + payload)
    except Exception as e:
        log("ERROR %s" % str(e).replace("\n", " "))
    finally:
        conn.close()
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
log("PORT %d" % listener.getsockname()[1])
while True:
    conn, addr = listener.accept()
    threading.Thread(target=serve, args=(conn, addr), daemon=True).start()
"""#
}

/// Debian's `tinyproxy` (`apt-get install tinyproxy`) on 127.0.0.1, in the foreground, with
/// `BasicAuth` and a log of every request (`Request (file descriptor N): GET http://… HTTP/1.1`).
final class TinyproxyServer: Sendable {
    /// `tinyproxy` on the `PATH` (or in /usr/bin, /usr/sbin), or `nil`.
    static let executable = Subprocess.executable("tinyproxy", fallbackPath: "", extraDirectories: ["/usr/bin", "/usr/sbin"])

    let port: Int
    private let child: OwnedChild
    private let logURL: URL

    /// Starts tinyproxy requiring `credential` and waits until it accepts connections.
    /// Starts tinyproxy on a thread of its own (it polls until tinyproxy listens).
    static func started(requiring credential: ProxyCredential) async throws -> TinyproxyServer {
        try await offThePool { try TinyproxyServer(requiring: credential) }
    }

    init(requiring credential: ProxyCredential) throws {
        guard let executable = Self.executable else { throw TLSTestError("no tinyproxy") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("an-tinyproxy-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(directory.path, 0o777) // tinyproxy may drop to another user to write its log
        logURL = directory.appendingPathComponent("tinyproxy.log")
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = try unusedLoopbackPort()
            let config = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 60
            MaxClients 64
            Allow 127.0.0.1
            BasicAuth \(credential.user) \(credential.password)
            LogFile "\(logURL.path)"
            LogLevel Info
            DisableViaHeader Yes
            """
            let configURL = directory.appendingPathComponent("tinyproxy.conf")
            try Data(config.utf8).write(to: configURL)
            let child = try Subprocess.start(executable, ["-d", "-c", configURL.path])
            if waitUntilListening(port, child: child, within: hangDeadline) {
                self.port = port
                self.child = OwnedChild(child)
                return
            }
            child.terminate()
            lastError = TLSTestError("tinyproxy did not listen on \(port)")
        }
        throw lastError ?? TLSTestError("tinyproxy did not start")
    }

    /// The `Request (…)` lines of the log so far: `GET http://127.0.0.1:N/path HTTP/1.1`.
    var requests: [String] {
        ((try? String(contentsOf: logURL, encoding: .utf8)) ?? "").split(separator: "\n")
            .compactMap { line in line.range(of: "Request (file descriptor").map { String(line[$0.upperBound...]) } }
    }

    /// Kills tinyproxy (SIGKILL) and reaps it.
    func stop() { child.stop() }
}
