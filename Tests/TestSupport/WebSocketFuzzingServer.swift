import Foundation
import AsyncNetworking

/// An Autobahn|Testsuite-style fuzzing server for WebSocket clients, in Python 3 with the
/// standard library only (`socket`, `threading`, `zlib`): the client under test is an echo client
/// that connects to `/runCase?case=ID`; the server sends the case's crafted raw frames, records
/// what the client sends back (echoed messages, pongs, its close frame, or the dropped
/// connection) and judges the case as Autobahn does — `OK`, `NON-STRICT` (right outcome, but an
/// echo lost to the failure that followed it, or a fail-fast that came only after the next
/// part), or `FAILED` (wrong events, wrong close code, the wrong endpoint closing, an unclean
/// close where a clean one is due, or a client frame that breaks RFC 6455/7692).
///
/// Control paths, each answered with one text message then a close: `/getCases` (a JSON array of
/// `{"id", "offer"}`: the `permessage-deflate` offer the client must make, or `null`) and
/// `/getResults` (a JSON object `id → {"behavior", "reason"}`, sent once every case that was run
/// has been judged). The cases are ``WebSocketFuzzingCases/script``.
enum WebSocketFuzzingServer {
    static var script: String { WebSocketServerPython.common + core + WebSocketFuzzingCases.script + main }

    static let core = #"""
CASES = []        # in order
BY_ID = {}
RESULTS = {}
RUNNING = set()
STATE = threading.Condition()

def close_payload(code, reason=b""):
    return struct.pack("!H", code) + reason

def utf8_ok(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False

class Case:
    """One case: `run(c)` sends; `expected` maps OK / NON-STRICT to the events the client must
    send back; `close` is (server closes first, allowed close codes, clean close required)."""
    def __init__(self, id, run, ok, nonstrict=None, close=(True, [1000], True), offer=None, accept=None, timeout=10.0):
        self.id, self.run, self.offer, self.accept, self.timeout = id, run, offer, accept, timeout
        self.expected = {"OK": ok}
        if nonstrict is not None:
            self.expected["NON-STRICT"] = nonstrict
        self.by_server, self.codes, self.clean = close

def add(*args, **kwargs):
    case = Case(*args, **kwargs)
    CASES.append(case)
    BY_ID[case.id] = case

def FAIL(*codes):
    """The client must fail the connection: its close frame with one of `codes`, or a drop."""
    return (False, list(codes), False)

def msg(payload, binary=False):
    return ("message", payload if isinstance(payload, bytes) else payload.encode(), binary)

def pong(payload):
    return ("pong", payload if isinstance(payload, bytes) else payload.encode())

class Client:
    """One connection to the client under test; a reader thread records what the client sends."""
    def __init__(self, conn, params):
        self.conn = conn
        self.params = params            # accepted permessage-deflate parameters, or None
        self.cond = threading.Condition()
        self.received = []
        self.close = None               # (code or None, reason) of the client's close frame
        self.close_before_ours = False
        self.sent_close = False
        self.eof = False
        self.violation = None
        self.send_lock = threading.Lock()
        if params is not None:
            bits = params.get("server_max_window_bits", 15)
            self.server_bits = bits
            self.compressor = zlib.compressobj(wbits=-bits)
            self.client_bits = params.get("client_max_window_bits", 15)
            self.inflater = zlib.decompressobj(wbits=-self.client_bits)
        threading.Thread(target=self.read_loop, daemon=True).start()

    # sending
    def send(self, data, chop=None):
        with self.send_lock:
            try:
                if chop is None:
                    self.conn.sendall(data)
                else:
                    for i in range(0, len(data), chop):
                        self.conn.sendall(data[i:i + chop])
            except OSError:
                pass

    def send_close(self, payload):
        with self.cond:
            if self.close is None:
                self.sent_close = True
        self.send(frame(8, payload))

    def compress(self, payload):
        if "server_no_context_takeover" in self.params:
            self.compressor = zlib.compressobj(wbits=-self.server_bits)
        out = self.compressor.compress(payload) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
        return out[:-4] if out.endswith(TAIL) else out

    def message(self, opcode, payload, fragment=None):
        """A data message's frames: compressed when deflate was accepted, cut in `fragment`-byte frames."""
        rsv = 0
        if self.params is not None:
            payload, rsv = self.compress(payload), 4
        if not fragment or len(payload) <= fragment:
            return frame(opcode, payload, rsv=rsv)
        out = b""
        for i in range(0, len(payload), fragment):
            first = i == 0
            out += frame(opcode if first else 0, payload[i:i + fragment], fin=i + fragment >= len(payload), rsv=rsv if first else 0)
        return out

    # waiting
    def ended(self):
        return self.close is not None or self.eof

    def wait(self, predicate, timeout):
        with self.cond:
            return self.cond.wait_for(predicate, timeout)

    def pause(self, seconds, mark):
        """Autobahn's continueLater: waits up to `seconds` for the client to fail; if it did not,
        records ("timeout", mark) and returns True (go on sending)."""
        if self.wait(self.ended, seconds):
            return False
        with self.cond:
            self.received.append(("timeout", mark))
        return True

    def record(self, event):
        with self.cond:
            self.received.append(event)
            self.cond.notify_all()

    def protocol_violation(self, why):
        with self.cond:
            if self.violation is None:
                self.violation = why
            self.cond.notify_all()

    # reading (the client's frames must be masked, with no reserved bits but RSV1 on a
    # compressed message's first frame, and well-formed fragments and control frames)
    def recv_exact(self, n):
        data = bytearray()
        while len(data) < n:
            chunk = self.conn.recv(min(n - len(data), 1 << 20))
            if not chunk:
                raise Closed()
            data += chunk
        return bytes(data)

    def read_loop(self):
        opcode, parts, compressed = None, [], False
        try:
            while True:
                b0, b1 = self.recv_exact(2)
                fin, rsv, op = b0 & 0x80, (b0 >> 4) & 7, b0 & 0x0F
                n = b1 & 0x7F
                if n == 126:
                    n = struct.unpack("!H", self.recv_exact(2))[0]
                elif n == 127:
                    n = struct.unpack("!Q", self.recv_exact(8))[0]
                if not b1 & 0x80:
                    self.protocol_violation("the client sent an unmasked frame")
                key = self.recv_exact(4) if b1 & 0x80 else b"\0\0\0\0"
                data = self.recv_exact(n)
                if n:
                    mask = (key * (n // 4 + 1))[:n]
                    data = (int.from_bytes(data, "big") ^ int.from_bytes(mask, "big")).to_bytes(n, "big")
                if self.close is not None:
                    self.protocol_violation("the client sent a frame after its close frame")
                if rsv & 3 or (rsv & 4 and (self.params is None or op not in (1, 2))):
                    self.protocol_violation("the client set reserved bits (rsv=%d, opcode %d)" % (rsv, op))
                if op >= 8:
                    if not fin or n > 125:
                        self.protocol_violation("the client sent a fragmented or long control frame")
                    if op == 8:
                        code = None
                        if n == 1 or (n >= 2 and not utf8_ok(data[2:])):
                            self.protocol_violation("the client sent a malformed close frame")
                        if n >= 2:
                            code = struct.unpack("!H", data[:2])[0]
                        with self.cond:
                            self.close = (code, data[2:])
                            self.close_before_ours = not self.sent_close
                            self.cond.notify_all()
                    elif op == 9:
                        self.record(("ping", data))
                    elif op == 10:
                        self.record(("pong", data))
                    else:
                        self.protocol_violation("the client sent opcode %d" % op)
                    continue
                if op in (1, 2):
                    if opcode is not None:
                        self.protocol_violation("the client began a message inside another")
                    opcode, parts, compressed = op, [data], bool(rsv & 4)
                elif op == 0:
                    if opcode is None:
                        self.protocol_violation("the client sent a continuation with no message")
                        continue
                    parts.append(data)
                else:
                    self.protocol_violation("the client sent opcode %d" % op)
                    continue
                if fin:
                    payload = b"".join(parts)
                    if compressed:
                        try:
                            if "client_no_context_takeover" in self.params:
                                self.inflater = zlib.decompressobj(wbits=-self.client_bits)
                            payload = self.inflater.decompress(payload + TAIL)
                        except zlib.error as e:
                            self.protocol_violation("the client's compressed message does not inflate with a %d-bit window: %s" % (self.client_bits, e))
                    if opcode == 1 and not utf8_ok(payload):
                        self.protocol_violation("the client sent a text message that is not UTF-8")
                    self.record(("message", payload, opcode == 2))
                    opcode, parts = None, []
        except (Closed, OSError, ValueError):
            pass
        with self.cond:
            self.eof = True
            self.cond.notify_all()

def split(events):
    """The events and the pauses apart: a pause's place among the events depends on timing, so
    only which pauses passed without a failure is compared (as Autobahn's fail-fast verdicts)."""
    return [e for e in events if e[0] != "timeout"], [e for e in events if e[0] == "timeout"]

def matches(received, expected):
    return any(split(received) == split(e) for e in expected.values())

def judge(case, c):
    with c.cond:
        received = list(c.received)
        violation = c.violation
        close, before, sent = c.close, c.close_before_ours, c.sent_close
    if violation:
        return "FAILED", violation
    behavior = None
    for name in ("OK", "NON-STRICT"):
        if name in case.expected and split(received) == split(case.expected[name]):
            behavior = name
            break
    if behavior is None:
        short = lambda events: [e if len(repr(e)) < 80 else e[:1] + (repr(e)[:60] + "...",) for e in events[:6]]
        return "FAILED", "Actual events differ from any expected: got %r, expected %r" % (short(received), short(case.expected["OK"]))
    if not case.clean and close is None and not c.eof:
        return "FAILED", "The client did not fail the connection"
    closed_by_server = sent and not before
    if case.by_server != closed_by_server:
        return "FAILED", "The connection was failed by the wrong endpoint (client close %r, server sent close: %s)" % (close, sent)
    if case.clean and (close is None or not sent):
        return "FAILED", "The spec requires the connection to be closed cleanly here (client close %r)" % (close,)
    if close is not None and close[0] is not None and close[0] not in case.codes:
        return "FAILED", "The close code should have been %s or empty, got %d" % (case.codes, close[0])
    return behavior, ""

def run_case(case, conn, headers):
    offered = "permessage-deflate" in headers.get("sec-websocket-extensions", "")
    params = None
    extra = []
    if case.accept is not None:
        if not offered:
            return None, ("FAILED", "the case needs permessage-deflate and the client did not offer it")
        params = {}
        for item in [p.strip() for p in case.accept.split(";") if p.strip()]:
            name, _, value = item.partition("=")
            params[name] = int(value) if value else True
        extra.append("Sec-WebSocket-Extensions: " + "; ".join(["permessage-deflate"] + [p.strip() for p in case.accept.split(";") if p.strip()]))
    return Client(conn, params), extra

def serve_case(case, c):
    case.run(c)
    if case.by_server:
        c.wait(lambda: c.ended() or c.violation or matches(c.received, case.expected), case.timeout)
        if not c.ended() and not c.sent_close:
            c.send_close(close_payload(case.codes[0]))
    c.wait(lambda: c.ended(), case.timeout)
    with c.cond:
        answer = c.close is not None and not c.sent_close
    if answer:
        c.send_close(close_payload(c.close[0]) if c.close[0] is not None else b"")
        with c.cond:
            c.sent_close = True
    result = judge(case, c)
    try:
        c.conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    c.wait(lambda: c.eof, 2)
    return result

"""#

    static let main = #"""

def answer(conn, headers, extra):
    accept = base64.b64encode(hashlib.sha1(headers.get("sec-websocket-key", "").encode() + GUID).digest()).decode()
    response = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: " + accept] + extra
    conn.sendall(("\r\n".join(response) + "\r\n\r\n").encode())

def send_text_and_close(conn, text):
    conn.sendall(frame(1, text.encode()) + frame(8, close_payload(1000)))
    conn.settimeout(5)
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass

def serve(conn):
    try:
        target, headers = handshake(conn)
        url = urlsplit(target)
        query = parse_qs(url.query)
        if url.path == "/getCases":
            answer(conn, headers, [])
            send_text_and_close(conn, json.dumps([{"id": c.id, "offer": c.offer} for c in CASES]))
        elif url.path == "/getResults":
            answer(conn, headers, [])
            with STATE:
                STATE.wait_for(lambda: not RUNNING, 60)
                text = json.dumps({k: {"behavior": v[0], "reason": v[1]} for k, v in RESULTS.items()})
            send_text_and_close(conn, text)
        elif url.path == "/runCase":
            case = BY_ID.get(query.get("case", [""])[0])
            if case is None:
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                return
            with STATE:
                RUNNING.add(case.id)
            try:
                c, extra = run_case(case, conn, headers)
                if c is None:
                    result = extra
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                else:
                    answer(conn, headers, extra)
                    result = serve_case(case, c)
            except Exception as e:
                result = ("FAILED", "the server failed: %r" % (e,))
            with STATE:
                RESULTS[case.id] = result
                RUNNING.discard(case.id)
                STATE.notify_all()
        else:
            conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    except (Closed, OSError):
        pass
    finally:
        close_quietly(conn)

def main():
    serve_forever(serve)

if __name__ == "__main__":
    main()
"""#
}
