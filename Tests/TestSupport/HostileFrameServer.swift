/// A WebSocket server (python3, standard library only, started by ``WebSocketTestServer``) that
/// completes the opening handshake and then sends one crafted frame header declaring any payload
/// length, for the rule that no length read from the wire traps whatever the client's limits.
///
/// `/frame?length=N&opcode=O&rsv=R&fragment=1&form=F`: after the 101 (accepting permessage-deflate
/// when the client offered it and `deflate` is in the query), optionally a first non-final text
/// fragment (`fragment=1`), then a frame header with `FIN`, RSV bits `R`, opcode `O` and the length
/// `N` (0 … 2^64−1) written in the 7-, 16- or 64-bit form `F` (`7`, `16` or `64`; default: the
/// shortest that holds it), then 1,000 payload bytes; the connection then stays open (reading
/// and discarding) until the client closes it.
enum HostileFrameServer {
    static var script: String { WebSocketServerPython.common + body }

    static let body = #"""

def header(fin, rsv, opcode, length, form):
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    if form == 7:
        return head + bytes([length])
    if form == 16:
        return head + bytes([126]) + struct.pack("!H", length)
    return head + bytes([127]) + struct.pack("!Q", length)

def serve(conn):
    try:
        target, headers = handshake(conn)
        url = urlsplit(target)
        query = parse_qs(url.query)
        key = headers.get("sec-websocket-key", "")
        accept = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
        response = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: " + accept]
        if "deflate" in query and "permessage-deflate" in headers.get("sec-websocket-extensions", ""):
            response.append("Sec-WebSocket-Extensions: permessage-deflate")
        conn.sendall(("\r\n".join(response) + "\r\n\r\n").encode())
        length = int(query.get("length", ["0"])[0])
        opcode = int(query.get("opcode", ["2"])[0])
        rsv = int(query.get("rsv", ["0"])[0])
        form = int(query.get("form", ["0"])[0]) or (7 if length < 126 else 16 if length <= 0xFFFF else 64)
        if query.get("fragment", ["0"])[0] == "1":
            conn.sendall(frame(1, b"first", fin=False))
        conn.sendall(header(True, rsv, opcode, length, form) + b"\x00" * 1000)
        conn.settimeout(30)
        while conn.recv(65536):
            pass
    except (Closed, OSError):
        pass
    finally:
        close_quietly(conn)

serve_forever(serve)
"""#
}
