import Foundation

/// A cleartext HTTP/2 server (prior knowledge, no upgrade) built on the PyPI `h2` package — an
/// independent implementation — started with ``WebSocketTestServer``'s python launcher (it prints
/// `PORT n`). For every stream it sends the `200` head at once, then by path:
///
/// - `/echo`: writes each DATA frame's bytes back on the same stream the moment they arrive;
/// - `/first`: speaks first — `hello` before any request data is read — then `got N` at the end;
///
/// - `/complete-cl/NNN`, `/complete-nocl/NNN`, `/complete-reset/NNN`: a complete `NNN` response
///   (`complete NNN`, with a `content-length` but for `-nocl`, the stream ended) before any request
///   data is read; `-reset` then resets
///   the stream with `NO_ERROR` (RFC 9113 §8.1: the client is to stop sending), the other keeps
///   reading (and acknowledging) whatever data still comes;
///
/// and (other paths) ends the stream with the trailers `x-received: N` and `x-request-trailers:
/// name=value;…` (or `-`: the request trailers it received).
enum H2DuplexPeer {
    /// Whether the `h2` package can be imported (`python3 -m pip install h2`).
    static let isAvailable: Bool = {
        guard let python = WebSocketTestServer.python else { return false }
        return (try? Subprocess.run(python, ["-c", "import h2"]).status) == 0
    }()

    /// Starts a server; stop it with `stop()`. With a certificate chain and its key it speaks TLS
    /// and offers only `h2` by ALPN, so a client that did not negotiate HTTP/2 cannot talk to it.
    static func start(certificate: URL? = nil, key: URL? = nil) throws -> WebSocketTestServer {
        try WebSocketTestServer(certificate: certificate, key: key, script: script)
    }

    static func url(_ server: WebSocketTestServer, _ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(server.port)\(path)")!
    }

    static let script = #"""
import asyncio, sys
from h2.config import H2Configuration
from h2.connection import H2Connection
from h2.events import RequestReceived, DataReceived, StreamEnded, TrailersReceived

async def handle(reader, writer):
    conn = H2Connection(H2Configuration(client_side=False, header_encoding='utf-8'))
    conn.initiate_connection()
    writer.write(conn.data_to_send())
    await writer.drain()
    paths, counts, trailers = {}, {}, {}
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, RequestReceived):
                    sid = event.stream_id
                    paths[sid] = dict(event.headers).get(':path', '/')
                    counts[sid] = 0
                    trailers[sid] = []
                    if paths[sid].startswith('/complete-'):
                        status = paths[sid].rsplit('/', 1)[1]
                        text = ('complete %s' % status).encode()
                        head = [(':status', status)]
                        if not paths[sid].startswith('/complete-nocl/'):
                            head.append(('content-length', str(len(text))))
                        conn.send_headers(sid, head)
                        conn.send_data(sid, text, end_stream=True)
                        if paths[sid].startswith('/complete-reset/'):
                            conn.reset_stream(sid, error_code=0)
                        continue
                    conn.send_headers(sid, [(':status', '200'), ('content-type', 'application/octet-stream')])
                    if paths[sid].startswith('/first'):
                        conn.send_data(sid, b'hello')
                elif isinstance(event, DataReceived):
                    sid = event.stream_id
                    try:
                        conn.acknowledge_received_data(event.flow_controlled_length, sid)
                    except Exception:
                        pass  # a stream this peer reset: only the connection's window counts
                    counts[sid] += len(event.data)
                    if paths[sid].startswith('/complete-'):
                        continue
                    if paths[sid].startswith('/echo') and event.data:
                        conn.send_data(sid, event.data)
                elif isinstance(event, TrailersReceived):
                    trailers[event.stream_id] = list(event.headers)
                elif isinstance(event, StreamEnded):
                    sid = event.stream_id
                    if paths[sid].startswith('/complete-'):
                        continue
                    if paths[sid].startswith('/first'):
                        conn.send_data(sid, ('got %d' % counts[sid]).encode())
                    received = ';'.join('%s=%s' % (k, v) for k, v in trailers[sid]) or '-'
                    conn.send_headers(sid, [('x-received', str(counts[sid])), ('x-request-trailers', received)], end_stream=True)
            out = conn.data_to_send()
            if out:
                writer.write(out)
                await writer.drain()
    except Exception as error:
        print('h2 peer:', repr(error), file=sys.stderr, flush=True)
    finally:
        writer.close()

async def main():
    context = None
    if len(sys.argv) >= 3:  # certificate chain and key: TLS offering only h2 (ALPN)
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        context.set_alpn_protocols(['h2'])
    server = await asyncio.start_server(handle, '127.0.0.1', 0, ssl=context)
    print('PORT %d' % server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()

asyncio.run(main())
"""#
}
