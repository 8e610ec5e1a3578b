/// Python shared by the WebSocket test servers' scripts (python3, standard library only).
enum WebSocketServerPython {
    /// The python both WebSocket servers start with (``WebSocketTestServer/script`` and
    /// ``WebSocketFuzzingServer``): the imports, `GUID`, `TAIL` (what permessage-deflate strips),
    /// `Closed`, `frame(opcode, payload, fin, rsv, length_override)` (an unmasked server frame; `rsv`
    /// the three RSV bits as a number, RSV1 = 4), `handshake(conn)` (the request's target and
    /// its headers, names lower-cased), `recv_exact(conn, n)`, `read_frame(conn)` (a frame's
    /// `fin, rsv1, opcode, payload, masked`, unmasked), `close_quietly(conn)` and
    /// `serve_forever(serve, context, rcvbuf)`.
    static let common = #"""
import base64, hashlib, json, os, random, socket, ssl, struct, sys, threading, time, zlib
from urllib.parse import urlsplit, parse_qs

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TAIL = b"\x00\x00\xff\xff"

class Closed(Exception):
    pass

def frame(opcode, payload=b"", fin=True, rsv=0, length_override=None):
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    n = len(payload) if length_override is None else length_override
    if n < 126:
        head += bytes([n])
    elif n <= 0xFFFF:
        head += bytes([126]) + struct.pack("!H", n)
    else:
        head += bytes([127]) + struct.pack("!Q", n)
    return head + payload

def handshake(conn):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        if not chunk:
            raise Closed()
        head += chunk
    lines = head.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    return lines[0].split(" ")[1], headers

def recv_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise Closed()
        data += chunk
    return data

def read_frame(conn):
    b0, b1 = recv_exact(conn, 2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", recv_exact(conn, 2))[0]
    elif n == 127:
        n = struct.unpack("!Q", recv_exact(conn, 8))[0]
    masked = b1 & 0x80
    key = recv_exact(conn, 4) if masked else b"\0\0\0\0"
    data = recv_exact(conn, n)
    if masked and n:
        mask = (key * (n // 4 + 1))[:n]
        data = (int.from_bytes(data, "big") ^ int.from_bytes(mask, "big")).to_bytes(n, "big")
    return b0 & 0x80 != 0, b0 & 0x40 != 0, b0 & 0x0F, data, bool(masked)

def close_quietly(conn):
    try:
        conn.close()
    except OSError:
        pass

def serve_forever(serve, context=None, rcvbuf=None):
    # Listens on 127.0.0.1 (port 0), prints `PORT n`, and runs serve(conn) on a thread of its own
    # for each connection (TCP_NODELAY; with a TLS `context`, after the handshake, and a failed
    # handshake only closes the connection). `rcvbuf` sets SO_RCVBUF before listening, so every
    # connection inherits it (a small window: what a client queues is not hidden in the kernel).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print("PORT %d" % sock.getsockname()[1], flush=True)
    while True:
        conn, _ = sock.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        def run(conn=conn):
            if context is not None:
                try:
                    conn = context.wrap_socket(conn, server_side=True)
                except (ssl.SSLError, OSError):
                    conn.close()
                    return
            serve(conn)
        threading.Thread(target=run, daemon=True).start()

"""#
}
