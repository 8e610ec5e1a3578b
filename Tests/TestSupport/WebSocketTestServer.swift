import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket server in Python 3 (stdlib only) on 127.0.0.1, port 0 read back from its first
/// line, that behaves by path: `/echo` (echo, close echo, `close-me` → its own close 4000),
/// `/cookies` (sets `ws-session=s1` in its 101, sends back the `Cookie` it received), `/auth` (401
/// with a Basic challenge unless `user:pass` is sent; then sends back the `Authorization` it got;
/// `/auth-list` the same with a Bearer challenge first and Basic in a second field),
/// `/fragmented` (a fragmented text with a ping and a pong inside), `/server-close`, protocol
/// violations (`/rsv`, `/opcode`, `/bad-utf8`, `/bad-close-code`, `/big-control`, `/too-big`,
/// `/bomb`), handshake faults (`/status`, `/redirect`, `/bad-accept`, `/wrong-protocol`,
/// `/unoffered-extension`, `/silent`: no answer), `/requests` (the targets of every handshake
/// request received before, one a line), `/no-close-echo`, `/drop`, `/flood` (many 1 MiB messages, then
/// `done`), `/stall` (reads nothing). permessage-deflate is accepted when offered (`?params=`
/// adds response parameters, `?nodeflate` refuses it). With a certificate and key it speaks TLS.
final class WebSocketTestServer: Sendable {
    let port: Int
    let isTLS: Bool
    private let child: Subprocess.Child
    private let directory: URL

    /// The `python3` on the PATH, if any.
    static let python = Subprocess.executable("python3")

    /// Starts `script` (default: the misbehaving server below) with a certificate and key for TLS.
    init(certificate: URL? = nil, key: URL? = nil, script: String = WebSocketTestServer.script, arguments extra: [String] = []) throws {
        guard let python = Self.python else { throw TLSTestError("python3 is not installed") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("an-ws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scriptFile = directory.appendingPathComponent("server.py")
        try Data(script.utf8).write(to: scriptFile)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TLSTestError("pipe failed") }
        var arguments = [scriptFile.path]
        if let certificate, let key { arguments += [certificate.path, key.path] }
        arguments += extra
        isTLS = certificate != nil
        // ASYNCNETWORKING_WS_SERVER_LOG=path keeps the server's stderr (tracebacks) for debugging.
        let log = ProcessInfo.processInfo.environment["ASYNCNETWORKING_WS_SERVER_LOG"].map { open($0, O_WRONLY | O_CREAT | O_APPEND, 0o644) } ?? -1
        defer { if log >= 0 { Glibc.close(log) } }
        do {
            child = try Subprocess.start(python, arguments, stdout: ends[1], stderr: log)
        } catch {
            Glibc.close(ends[0])
            Glibc.close(ends[1])
            throw error
        }
        Glibc.close(ends[1])
        defer { Glibc.close(ends[0]) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(ends[0], &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            child.terminate()
            throw TLSTestError("the WebSocket test server did not start: \(text)")
        }
        self.port = port
    }

    /// `ws://127.0.0.1:port/path` (or `wss://`).
    func url(_ pathAndQuery: String) -> URL {
        URL(string: "\(isTLS ? "wss" : "ws")://127.0.0.1:\(port)\(pathAndQuery)")!
    }

    /// Kills the server and removes its directory.
    func stop() {
        child.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether the PyPI `websockets` package can be imported (CI installs it; skipped without).
    static let hasWebsocketsPackage: Bool = {
        guard let python else { return false }
        return (try? Subprocess.run(python, ["-c", "import websockets"]).status) == 0
    }()

    /// An echo server built on the PyPI `websockets` package (an independent implementation):
    /// echoes every message, offers permessage-deflate unless `--no-compression`, picks a
    /// subprotocol from `chat`/`superchat` (a client must offer one), and on `/close` closes with 4001 "done here".
    static let websocketsPeerScript = #"""
import asyncio, sys
try:
    from websockets.asyncio.server import serve
except ImportError:  # websockets < 13
    from websockets import serve

async def handler(ws):
    path = ws.request.path if hasattr(ws, "request") else ws.path
    if path.startswith("/close"):
        await ws.close(4001, "done here")
        return
    async for message in ws:
        await ws.send(message)

async def main():
    compression = None if "--no-compression" in sys.argv else "deflate"
    async with serve(handler, "127.0.0.1", 0, max_size=None, compression=compression, subprotocols=["chat", "superchat"]) as server:
        port = list(server.sockets)[0].getsockname()[1]
        print("PORT %d" % port, flush=True)
        await asyncio.Future()

asyncio.run(main())
"""#

    static let script = WebSocketServerPython.common + #"""
class Peer:
    def __init__(self, conn, deflate, params):
        self.conn = conn
        self.deflate = deflate
        self.params = params
        self.inflater = zlib.decompressobj(wbits=-15)
        self.lock = threading.Lock()

    def send(self, data):
        with self.lock:
            self.conn.sendall(data)

    def compress(self, payload):
        c = zlib.compressobj(wbits=-15)
        out = c.compress(payload) + c.flush(zlib.Z_SYNC_FLUSH)
        return out[:-4] if out.endswith(TAIL) else out

    def send_message(self, opcode, payload):
        if self.deflate:
            self.send(frame(opcode, self.compress(payload), rsv=4))
        else:
            self.send(frame(opcode, payload))

    def read_message(self):
        """Returns (opcode, payload) of the next data message, answering pings; ('close', payload) on close."""
        opcode = None
        parts = []
        compressed = False
        while True:
            fin, rsv1, op, data, masked = read_frame(self.conn)
            if not masked:
                raise Closed("client frame not masked")
            if op == 9:
                self.send(frame(10, data))
                continue
            if op == 10:
                continue
            if op == 8:
                return 8, data
            if op in (1, 2):
                opcode, compressed, parts = op, rsv1, [data]
            else:
                parts.append(data)
            if fin:
                payload = b"".join(parts)
                if compressed:
                    payload = self.inflater.decompress(payload + TAIL)
                    if "client_no_context_takeover" in self.params:
                        self.inflater = zlib.decompressobj(wbits=-15)
                return opcode, payload

REQUESTS = []  # every handshake's target but /requests', in order

def serve(conn):
    try:
        target, headers = handshake(conn)
        url = urlsplit(target)
        path = url.path
        if path != "/requests":
            REQUESTS.append(target)
        query = parse_qs(url.query)
        key = headers.get("sec-websocket-key", "")
        accept = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
        if path == "/silent":
            time.sleep(30)  # never answers the handshake
            return
        if path == "/status":
            conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        if path == "/redirect":
            conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /echo\r\nContent-Length: 0\r\n\r\n")
            return
        if path == "/auth" and headers.get("authorization", "") != "Basic dXNlcjpwYXNz":
            conn.sendall(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"ws\"\r\nContent-Length: 0\r\n\r\n")
            return
        if path == "/auth-list" and headers.get("authorization", "") != "Basic dXNlcjpwYXNz":
            conn.sendall(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"api\", error=\"a, Basic b\"\r\nWWW-Authenticate: Basic realm=\"ws-list\"\r\nContent-Length: 0\r\n\r\n")
            return
        if path == "/bad-accept":
            accept = base64.b64encode(b"x" * 20).decode()
        response = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: " + accept]
        offered = [p.strip() for p in headers.get("sec-websocket-protocol", "").split(",") if p.strip()]
        if path == "/wrong-protocol":
            response.append("Sec-WebSocket-Protocol: not-offered")
        elif offered:
            response.append("Sec-WebSocket-Protocol: " + offered[-1])
        deflate = False
        params = ""
        ext = headers.get("sec-websocket-extensions", "")
        if "permessage-deflate" in ext and "nodeflate" not in query:
            deflate = True
            params = query.get("params", [""])[0]
            response.append("Sec-WebSocket-Extensions: permessage-deflate" + (("; " + params) if params else ""))
        if path == "/unoffered-extension":
            response.append("Sec-WebSocket-Extensions: x-unknown")
        if path == "/headers":
            echo = headers.get("x-test", "")
        if path == "/cookies":
            response.append("Set-Cookie: ws-session=s1; Path=/")
        conn.sendall(("\r\n".join(response) + "\r\n\r\n").encode())
        peer = Peer(conn, deflate, params)
        behave(peer, path, query, headers)
    except (Closed, ConnectionError, OSError, ssl.SSLError):
        pass
    finally:
        close_quietly(conn)

def wait_close(peer, echo=True):
    while True:
        op, data = peer.read_message()
        if op == 8:
            if echo:
                peer.send(frame(8, data[:2]))
            return data

def behave(peer, path, query, headers):
    if path == "/echo":
        while True:
            op, data = peer.read_message()
            if op == 8:
                peer.send(frame(8, data[:2]))
                return
            if data == b"close-me":
                peer.send(frame(8, struct.pack("!H", 4000) + "bye ✓".encode()))
                wait_close(peer, echo=False)
                return
            peer.send_message(op, data)
    elif path == "/headers":
        peer.send_message(1, (headers.get("x-test", "") + "|" + headers.get("host", "")).encode())
        wait_close(peer)
    elif path == "/requests":
        peer.send_message(1, "\n".join(REQUESTS).encode())
        wait_close(peer)
    elif path in ("/auth", "/auth-list"):
        peer.send_message(1, headers.get("authorization", "").encode())
        wait_close(peer)
    elif path == "/cookies":
        peer.send_message(1, headers.get("cookie", "").encode())
        wait_close(peer)
    elif path == "/server-close":
        peer.send(frame(8, struct.pack("!H", 1001) + b"going away"))
        data = wait_close(peer, echo=False)
        peer.send(frame(1, b"late"))  # ignored by a closed client
    elif path == "/rsv":
        peer.send(frame(1, b"x", rsv=2))
        wait_close(peer, echo=False)
    elif path == "/opcode":
        peer.send(frame(3, b""))
        wait_close(peer, echo=False)
    elif path == "/bad-utf8":
        peer.send(frame(1, "κό".encode(), fin=False))
        peer.send(frame(0, b"\xed\xa0\x80", fin=False))
        wait_close(peer, echo=False)
    elif path == "/bad-close-code":
        peer.send(frame(8, struct.pack("!H", 1005)))
        wait_close(peer, echo=False)
    elif path == "/big-control":
        peer.send(frame(9, b"x" * 126))
        wait_close(peer, echo=False)
    elif path == "/too-big":
        peer.send(frame(2, b"\0" * (2 << 20)))
        wait_close(peer, echo=False)
    elif path == "/bomb":
        c = zlib.compressobj(wbits=-15)
        data = c.compress(b"\0" * (64 << 20)) + c.flush(zlib.Z_SYNC_FLUSH)
        peer.send(frame(2, data[:-4], rsv=4))
        wait_close(peer, echo=False)
    elif path == "/fragmented":
        peer.send(frame(1, "Hel".encode(), fin=False))
        peer.send(frame(9, b"p1"))
        peer.send(frame(0, "lo, ".encode(), fin=False))
        peer.send(frame(10, b"unsolicited"))
        peer.send(frame(0, "wörld".encode(), fin=True))
        fin, rsv1, op, data, masked = read_frame(peer.conn)
        peer.send_message(1, ("got %d %s" % (op, data.decode())).encode())
        wait_close(peer)
    elif path == "/no-close-echo":
        while True:
            op, data = peer.read_message()
            if op == 8:
                time.sleep(30)
                return
    elif path == "/drop":
        peer.send(frame(1, b"bye"))
        peer.conn.shutdown(socket.SHUT_RDWR)
    elif path == "/flood":
        count = int(query.get("count", ["32"])[0])
        size = int(query.get("size", [str(1 << 20)])[0])
        for i in range(count):
            peer.send_message(2, bytes([i & 0xFF]) * size)
        peer.send_message(1, b"done")
        wait_close(peer)
    elif path == "/stall":
        # Reads nothing: the client's sends fill the TCP buffers and its send() must suspend.
        time.sleep(float(query.get("seconds", ["10"])[0]))

def main():
    context = None
    if len(sys.argv) >= 3:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
    serve_forever(serve, context)

if __name__ == "__main__":
    main()
"""#
}
