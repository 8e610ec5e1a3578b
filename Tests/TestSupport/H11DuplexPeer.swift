import Foundation

/// An HTTP/1.1 server built on the PyPI `h11` package — an independent implementation of HTTP/1.1
/// framing (chunked bodies both ways, trailer sections) — started with ``WebSocketTestServer``'s
/// python launcher (it prints `PORT n`). It answers every request with a chunked `200` head at once,
/// before reading any body, then by path:
///
/// - `/echo`: writes each piece of request body back the moment h11 hands it over;
/// - `/first`: speaks first — `hello` — then `got N` after the request's end;
///
/// - `/complete-cl/NNN`, `/complete-chunked/NNN`: a complete `NNN` response — `complete NNN` with
///   a `Content-Length`, or chunked and ended — at once, then reads whatever body still comes;
///
/// and (other paths) ends the response with the trailers `x-received: N` and `x-request-trailers: name=value;…`
/// (or `-`): the request's trailer fields as h11 parsed them.
enum H11DuplexPeer {
    /// Whether the `h11` package can be imported (`python3 -m pip install h11`).
    static let isAvailable: Bool = {
        guard let python = WebSocketTestServer.python else { return false }
        return (try? Subprocess.run(python, ["-c", "import h11"]).status) == 0
    }()

    static func start() throws -> WebSocketTestServer {
        try WebSocketTestServer(script: script)
    }

    static func url(_ server: WebSocketTestServer, _ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(server.port)\(path)")!
    }

    static let script = #"""
import asyncio, sys
import h11

async def handle(reader, writer):
    conn = h11.Connection(h11.SERVER)
    path, received = '/', 0
    async def send(event):
        data = conn.send(event)
        if data:
            writer.write(data)
            await writer.drain()
    try:
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await reader.read(65536)
                conn.receive_data(data)
                if not data:
                    break
                continue
            if isinstance(event, h11.Request):
                path = event.target.decode()
                received = 0
                if path.startswith('/complete-'):
                    status = int(path.rsplit('/', 1)[1])
                    text = ('complete %d' % status).encode()
                    if path.startswith('/complete-cl/'):
                        await send(h11.Response(status_code=status, headers=[('content-length', str(len(text)))]))
                    else:
                        await send(h11.Response(status_code=status, headers=[('transfer-encoding', 'chunked')]))
                    await send(h11.Data(data=text))
                    await send(h11.EndOfMessage())
                    continue
                await send(h11.Response(status_code=200, headers=[('content-type', 'application/octet-stream'), ('transfer-encoding', 'chunked')]))
                if path.startswith('/first'):
                    await send(h11.Data(data=b'hello'))
            elif isinstance(event, h11.Data):
                received += len(event.data)
                if path.startswith('/complete-'):
                    continue
                if path.startswith('/echo'):
                    await send(h11.Data(data=bytes(event.data)))
            elif isinstance(event, h11.EndOfMessage):
                if path.startswith('/complete-'):
                    break
                if path.startswith('/first'):
                    await send(h11.Data(data=('got %d' % received).encode()))
                fields = ';'.join('%s=%s' % (k.decode(), v.decode()) for k, v in event.headers) or '-'
                await send(h11.EndOfMessage(headers=[('x-received', str(received)), ('x-request-trailers', fields)]))
                if conn.our_state is h11.MUST_CLOSE:
                    break
                conn.start_next_cycle()
            elif isinstance(event, h11.ConnectionClosed):
                break
    except Exception as error:
        print('h11 peer:', repr(error), file=sys.stderr, flush=True)
    finally:
        writer.close()

async def main():
    server = await asyncio.start_server(handle, '127.0.0.1', 0)
    print('PORT %d' % server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()

asyncio.run(main())
"""#
}
