/// A hostile WebSocket server for the memory-bound tests (python3, standard library only), run
/// by ``WebSocketTestServer`` (`WebSocketTestServer(script: WebSocketHostilePeer.script)`). It
/// keeps its receive buffer small (`SO_RCVBUF` 64 KiB), so what the client queues is not hidden in
/// the kernel, and behaves by path:
///
/// - `/ping-flood?count=C&size=N`: sends `C` pings of `N` payload bytes as fast as TCP takes
///   them and never reads a byte (so every pong the client owes stays with it), then the text
///   `done`, then sleeps.
/// - `/message-flood?count=C&size=N&opcode=1|2`: sends `C` messages of `N` bytes (byte `i & 0xFF`
///   repeated, or empty), then the text `done`; then reads until the client's close and echoes it.
/// - `/authorization`: sends the handshake's `Authorization` value (or `none`) as a text, then
///   echoes the client's close.
/// - `/ping-probe`: reads the client's ping, sends the text `got ping HEX` (its payload), a pong
///   with another payload and the text `sent other`; waits for a text from the client, then sends
///   the pong the ping asked for and the text `answered`; then echoes the client's close.
enum WebSocketHostilePeer {
    static let script = WebSocketServerPython.common + #"""
def echo_close(conn):
    while True:
        _, _, op, data, _ = read_frame(conn)
        if op == 9:
            conn.sendall(frame(10, data))
        elif op == 8:
            conn.sendall(frame(8, data[:2]))
            return

def flood(conn, one, count):
    batch = 4096
    block = one * batch
    sent = 0
    while sent + batch <= count:
        conn.sendall(block)
        sent += batch
    if sent < count:
        conn.sendall(one * (count - sent))

def serve(conn):
    try:
        target, headers = handshake(conn)
        url = urlsplit(target)
        query = parse_qs(url.query)
        key = headers.get("sec-websocket-key", "")
        accept = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
        conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").encode())
        count = int(query.get("count", ["0"])[0])
        size = int(query.get("size", ["0"])[0])
        if url.path == "/ping-flood":
            flood(conn, frame(9, b"p" * size), count)
            conn.sendall(frame(1, b"done"))
            time.sleep(600)
        elif url.path == "/message-flood":
            opcode = int(query.get("opcode", ["2"])[0])
            if size == 0:
                flood(conn, frame(opcode, b""), count)
            else:
                batch = []
                for i in range(count):
                    batch.append(frame(opcode, bytes([i & 0xFF]) * size))
                    if len(batch) == 4096:
                        conn.sendall(b"".join(batch))
                        batch = []
                conn.sendall(b"".join(batch))
            conn.sendall(frame(1, b"done"))
            echo_close(conn)
        elif url.path == "/authorization":
            conn.sendall(frame(1, headers.get("authorization", "none").encode()))
            echo_close(conn)
        elif url.path == "/ping-probe":
            _, _, op, payload, _ = read_frame(conn)
            conn.sendall(frame(1, ("got %s %s" % ("ping" if op == 9 else "op%d" % op, payload.hex())).encode()))
            conn.sendall(frame(10, b"another payload"))
            conn.sendall(frame(1, b"sent other"))
            while True:
                _, _, op, data, _ = read_frame(conn)
                if op == 1:
                    break
            conn.sendall(frame(10, payload))
            conn.sendall(frame(1, b"answered"))
            echo_close(conn)
    except (Closed, ConnectionError, OSError, ssl.SSLError):
        pass
    finally:
        close_quietly(conn)

def main():
    serve_forever(serve, None, rcvbuf=64 * 1024)

if __name__ == "__main__":
    main()
"""#
}
