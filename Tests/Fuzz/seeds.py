#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into Tests/Fuzz/Corpus/TARGET/ (python3, standard
library; brotli through libbrotlienc.so.1 and zstd through the `zstd` command when present).

Each seed starts with the choice bytes its target reads first (see the target's entry file), then
the data. Seeds are valid and invalid examples of what a peer sends; the fuzzer mutates from them.
Run it again after changing how a target reads its input: `python3 Tests/Fuzz/seeds.py`.
Inputs that once crashed a target are kept in the same directories as `crash-*` files and are
never rewritten by this script.
"""
import ctypes, gzip, os, struct, subprocess, zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")


def write(target, name, data):
    directory = os.path.join(ROOT, target)
    os.makedirs(directory, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def ws_frame(opcode, payload=b"", fin=True, rsv=0, length=None, mask=None):
    n = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    bit = 0x80 if mask else 0
    if n < 126:
        head += bytes([bit | n])
    elif n <= 0xFFFF:
        head += bytes([bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", n)
    return head + (mask or b"") + payload


def raw_deflate(data, wbits=-15):
    c = zlib.compressobj(wbits=wbits)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    return out[:-4] if out.endswith(b"\x00\x00\xff\xff") else out


def brotli(data):
    try:
        lib = ctypes.CDLL("libbrotlienc.so.1")
    except OSError:
        return None
    size = ctypes.c_size_t(len(data) + 1024)
    out = ctypes.create_string_buffer(size.value)
    ok = lib.BrotliEncoderCompress(5, 22, 0, ctypes.c_size_t(len(data)), data, ctypes.byref(size), out)
    return out.raw[:size.value] if ok else None


def zstd(data):
    try:
        return subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


TEXT = b"".join(b"line %d of some text that compresses well, alpha beta gamma\n" % i for i in range(60))
HUGE = "9" * 300

# ---------------------------------------------------------------- head-parser: [2 bytes] + lines
heads = {
    "ok": "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nSet-Cookie: a=b\r\nSet-Cookie: c=d\r\n\r\n",
    "http2": "HTTP/2 204\r\ndate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
    "interim": "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nLocation: /x\r\n\r\n",
    "retry": "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    "trailers": "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\nX-Sum: 42\r\nHTTP/1.1 2000 Weird\r\n bad fold\r\nno colon\r\n\r\n",
    "folded": "HTTP/1.0 200 OK\r\nX-A: one\r\n two\r\n\tthree\r\nX-B:\r\n\r\n",
    "bare-lf": "HTTP/1.1 200 OK\nContent-Length: 3\n\n",
    "bad-status": "HTTP/1.1 20 OK\r\n\r\n",
    "lowercase": "http/1.1 200 OK\r\n\r\n",
    "controls": "HTTP/1.1 200 OK\r\nX-A: a\x0bb\r\nX-\x7f: c\r\n\r\n",
    "lengths": "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\nContent-Length: 18446744073709551616\r\nContent-Length: -1\r\n\r\n",
    "huge-length": "HTTP/1.1 200 OK\r\nContent-Length: " + HUGE + "\r\n\r\n",
    "encodings": "HTTP/1.1 200 OK\r\nContent-Encoding: gzip, br, zstd, deflate, x-gzip, gzip\r\nContent-Length: 10\r\n\r\n",
    "latin1": "HTTP/1.1 200 \xe9t\xe9\r\nX-N: caf\xe9\r\n\r\n",
}
for name, text in heads.items():
    write("head-parser", name, b"\x00\x05" + text.encode("latin-1"))

# ---------------------------------------------------------------- websocket-frames: [limit, cut] + frames
frames = {
    "text": ws_frame(1, b"Hello, world!") + ws_frame(8, struct.pack("!H", 1000) + b"bye"),
    "binary-16": ws_frame(2, b"\xfe" * 200),
    "binary-64": ws_frame(2, b"\x01" * 70000),
    "fragmented": ws_frame(1, b"Hel", fin=False) + ws_frame(9, b"p") + ws_frame(0, "lo, wö".encode(), fin=False) + ws_frame(10, b"u") + ws_frame(0, b"rld"),
    "longest-legal": ws_frame(2, b"x" * 16, length=(1 << 63) - 1),
    "top-bit": ws_frame(2, b"", length=1 << 63),
    "all-ones": bytes([0x82, 127]) + b"\xff" * 8,
    "int-max-minus-10": ws_frame(1, "hé".encode(), length=(1 << 63) - 11),
    "big-ping": ws_frame(9, b"x" * 126),
    "bad-utf8": ws_frame(1, b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited"),
    "masked": ws_frame(1, b"abcd", mask=b"\x01\x02\x03\x04"),
    "rsv": ws_frame(1, b"x", rsv=3),
    "opcode": ws_frame(3, b"") + ws_frame(11, b""),
    "close-codes": ws_frame(8, struct.pack("!H", 1005)) + ws_frame(8, b"\x03"),
    "continuation-alone": ws_frame(0, b"x"),
    "nested-message": ws_frame(1, b"a", fin=False) + ws_frame(1, b"b"),
}
for index, (name, data) in enumerate(frames.items()):
    write("websocket-frames", name, bytes([index % 10, index * 7 % 256]) + data)
write("websocket-frames", "no-limit", bytes([9, 0]) + ws_frame(2, b"z" * 300, length=(1 << 63) - 1))

# ---------------------------------------------------------------- websocket-deflate: [limit, flags, cut] + frames
hello = raw_deflate(b"Hello, Hello, Hello, compressed world!")
bomb = raw_deflate(b"\x00" * (1 << 20))
deflate = {
    "message": ws_frame(1, hello, rsv=4),
    "fragmented": ws_frame(2, hello[:5], fin=False, rsv=4) + ws_frame(0, hello[5:]),
    "two-messages": ws_frame(1, hello, rsv=4) + ws_frame(1, raw_deflate(b"again"), rsv=4),
    "bomb": ws_frame(2, bomb, rsv=4),
    "corrupt": ws_frame(2, b"\xff\xff\xff\xff" + hello, rsv=4),
    "final-block": ws_frame(2, zlib.compressobj(wbits=-15).compress(b"x") + zlib.compressobj(wbits=-15).flush(), rsv=4),
    "empty": ws_frame(1, b"\x00", rsv=4),
    "rsv-continuation": ws_frame(1, hello[:3], fin=False, rsv=4) + ws_frame(0, hello[3:], rsv=4),
    "plain-after": ws_frame(1, hello, rsv=4) + ws_frame(1, b"plain"),
}
for index, (name, data) in enumerate(deflate.items()):
    write("websocket-deflate", name, bytes([index % 6, index * 3 % 0x80, index * 11 % 256]) + data)
write("websocket-deflate", "compressor", bytes([4, 0x80 | 0x04, 0]) + TEXT[:500])
write("websocket-deflate", "compressor-empty", bytes([1, 0x83, 0]))

# ---------------------------------------------------------------- websocket-handshake: [choice] + head
accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
handshakes = {
    "deflate": (0x81, "Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=10; client_max_window_bits=12\r\n\r\n"),
    "no-context": (0x83, "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover\r\n\r\n"),
    "only-semicolon": (0x81, "Sec-WebSocket-Extensions: ;\r\n\r\n"),
    "bits": (0x87, "Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=" + HUGE + "\r\n\r\n"),
    "quoted-bits": (0x81, "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=\"10\"\r\n\r\n"),
    "twice": (0x81, "Sec-WebSocket-Extensions: permessage-deflate, permessage-deflate\r\n\r\n"),
    "protocol": (0x88, "Sec-WebSocket-Protocol: chat\r\nSet-Cookie: a=b\r\n\r\n"),
    "full": (0x01, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n"),
    "refused": (0x00, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"ws\"\r\n\r\n"),
    "redirect": (0x00, "HTTP/1.1 302 Found\r\nLocation: /x\r\n\r\n"),
    "status-huge": (0x00, "HTTP/1.1 " + HUGE + " X\r\n\r\n"),
}
for name, (choice, text) in handshakes.items():
    write("websocket-handshake", name, bytes([choice]) + text.encode())

# ---------------------------------------------------------------- sse: [maxLine, maxEvent, cut, attempts] + stream
streams = {
    "basic": "data: hello\n\ndata: a\ndata: b\nevent: tick\nid: 7\n\n",
    "crlf": "\ufeffdata: x\r\n\r\nid: 1\r\nretry: 1500\r\n\r\n",
    "cr": "data: one\rdata: two\r\r:comment\r",
    "retry-huge": "retry: " + HUGE + "\ndata: x\n\n",
    "retry-bad": "retry: 12a\nretry: -5\nretry: \nretry: 9223372036854775808\n\n",
    "id-nul": "id: a\x00b\ndata: x\n\nid\ndata\n\n",
    "fields": "data\nevent\n: only comment\nfoo: bar\ndata:no-space\n\n",
}
for index, (name, text) in enumerate(streams.items()):
    write("sse", name, bytes([3, 3, index * 5 % 256, index * 9 % 256]) + text.encode("utf-8", "surrogatepass"))
write("sse", "limits", bytes([1, 1, 1, 64]) + b"data: " + b"x" * 40 + b"\n\n")
write("sse", "invalid-utf8", bytes([3, 3, 0, 1]) + b"data: \xff\xfe\xc3\n\n")

# ---------------------------------------------------------------- lines: [maxLine, cut] + NDJSON
ndjson = {
    "values": b'{"a":1,"b":[true,false,null],"c":"x"}\n[1,2.5,-3e10]\n"s"\n\n  \t\n42\n',
    "deep": b"[" * 600 + b"]" * 600 + b"\n" + b'{"a":' * 300 + b"1" + b"}" * 300 + b"\n",
    "numbers": b"1e400\n-1e-400\n123456789012345678901234567890\n-0\n0.1e1\n9223372036854775808\n",
    "escapes": b'"\\u0000\\ud800\\udc00\\ud800"\n"\\x"\n{"\\u00e9": "\xc3\xa9"}\n',
    "endings": b"a\rb\r\nc\n\r\n\rlast",
    "invalid": b"{\"a\":\n]\n\xff\xfe\n{\"a\" 1}\n",
}
for index, (name, data) in enumerate(ndjson.items()):
    write("lines", name, bytes([4, index * 3 % 256]) + data)
write("lines", "long-line", bytes([1, 1]) + b"x" * 20 + b"\n")

# ---------------------------------------------------------------- multipart: reader [0, typeLen] + type + body; writer [1] + \x01-separated
def reader(content_type, body):
    t = content_type.encode()
    return bytes([0, len(t)]) + t + body

write("multipart", "form", reader("multipart/form-data; boundary=XyZ",
      b"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n--XyZ\r\n"
      b"Content-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\nContent-Type: text/plain\r\n\r\nfile\r\n--XyZ--\r\n"))
write("multipart", "preamble", reader("multipart/form-data; boundary=\"q b\"", b"preamble\r\n--q b  \r\nContent-Disposition: form-data; name=x\r\n\r\n\r\n--q b--"))
write("multipart", "no-close", reader("multipart/form-data; boundary=b", b"--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated"))
write("multipart", "bad-headers", reader("multipart/mixed; boundary=b", b"--b\r\nno colon\r\n\r\nx\r\n--b--\r\n--b\r\n\r\n"))
write("multipart", "escaped-name", reader("multipart/form-data; boundary=b", b"--b\r\nContent-Disposition: form-data; name=\"a\\\"b;c\"; filename=\"\\\\\"\r\n\r\n\r\n--b--"))
write("multipart", "empty-boundary", reader("multipart/form-data; boundary=", b"--\r\n\r\n----"))
write("multipart", "writer", b"\x01AsyncNetworking.boundary.1\x01name\x01file.txt\x01content\x01n2\x01\x01second part")
write("multipart", "writer-quotes", b"\x01b\x01na\"me\r\n\x01fi\nle\"\x01--b\r\n\x01x")

# ---------------------------------------------------------------- set-cookie: [url] + values (LF-separated)
cookies = {
    "basic": "a=b; Path=/; Domain=example.com; Secure; HttpOnly; SameSite=Lax",
    "max-age": "a=b; Max-Age=9223372036854775807\nc=d; Max-Age=-9223372036854775809\ne=f; Max-Age=" + HUGE + "\ng=h; Max-Age=0",
    "expires": "a=b; Expires=Wed, 21 Oct 2015 07:28:00 GMT\nc=d; Expires=Thu, 01-Jan-70 00:00:01 GMT\ne=f; expires=99999999999999:00:00 1 Jan 2020",
    "prefixes": "__Host-a=1; Secure; Path=/\n__Secure-b=2; Secure\n__Host-c=3; Secure",
    "combined": "a=b, c=d; Expires=Wed, 21 Oct 2015 07:28:00 GMT, e=f",
    "nameless": "=v\nv\n;\n=\n a = b ; ; =; Path",
    "domains": "a=b; Domain=.co.uk\nc=d; Domain=com\ne=f; Domain=127.0.0.1\ng=h; Domain=sub.example.com",
    "controls": "a=b\x01c\nd=e\x7f\nf=\tg",
    "long": "a=" + "v" * 4100 + "\nb=c; Path=/" + "p" * 1100,
}
for index, (name, text) in enumerate(cookies.items()):
    write("set-cookie", name, bytes([index % 6]) + text.encode("utf-8"))

# ---------------------------------------------------------------- cache-control: [status, now] + \x01-separated (first char picks the field)
def fields(*pairs):
    # field index 0..7 for the response; +0x40 for the request
    return b"".join(b"\x01" + bytes([index]) + value.encode() for index, value in pairs)

caches = {
    "fresh": fields((0, "max-age=60, public"), (2, "Sun, 06 Nov 1994 08:49:37 GMT"), (1, "10")),
    "huge": fields((0, "max-age=" + HUGE + ", s-maxage=9223372036854775808"), (1, "18446744073709551616")),
    "stale": fields((0, "no-cache, must-revalidate"), (0x40, "max-stale, min-fresh=" + HUGE)),
    "expires": fields((3, "Fri, 31 Dec 9999 23:59:59 GMT"), (2, "Sat, 01 Jan 0001 00:00:00 GMT")),
    "heuristic": fields((4, "Sunday, 06-Nov-94 08:49:37 GMT"), (7, "\"etag\"")),
    "vary": fields((5, "Accept-Encoding, *"), (0x40 | 5, "gzip"), (6, "no-cache")),
    "repeated": fields((0, "max-age=60, max-age=120, max-age=\"5\", max-age=-1")),
}
for index, (name, data) in enumerate(caches.items()):
    write("cache-control", name, bytes([index % 9, 170]) + data)

# ---------------------------------------------------------------- http-date: [choice] + text
dates = {
    "imf": "Sun, 06 Nov 1994 08:49:37 GMT", "rfc850": "Sunday, 06-Nov-94 08:49:37 GMT", "asctime": "Sun Nov  6 08:49:37 1994",
    "leap": "Fri, 31 Dec 9999 23:59:60 GMT", "first": "Mon, 01 Jan 0001 00:00:00 GMT", "huge-year": "Sun, 06 Nov " + HUGE + " 08:49:37 GMT",
    "retry-digits": "120", "retry-huge": HUGE, "retry-max": "9223372036854775808", "cookie-date": "Wed, 21-Oct-2015 07:28:00 GMT",
    "garbage": "Sun, 32 Feb 1994 25:61:61 GMT",
}
for name, text in dates.items():
    write("http-date", name, b"\x00" + text.encode())

# ---------------------------------------------------------------- content-decoders: [encoding, room, cut] + body
encodings = ["gzip", "x-gzip", "deflate", "br", "zstd", "gzip, br", "deflate, gzip", "identity, zstd",
             "gzip, gzip, gzip, gzip, gzip", "gzip, gzip, gzip, gzip, gzip, gzip", "br, zstd, gzip", "unknown", ""]
def decoder_seed(name, encoding, body, room=2, cut=4):
    write("content-decoders", name, bytes([encodings.index(encoding), room, cut]) + body)

decoder_seed("gzip", "gzip", gzip.compress(TEXT))
decoder_seed("gzip-members", "gzip", gzip.compress(TEXT[:100]) + gzip.compress(TEXT[100:]))
decoder_seed("zlib", "deflate", zlib.compress(TEXT))
decoder_seed("raw", "deflate", raw_deflate(TEXT) + b"\x03\x00")
decoder_seed("gzip-cut", "gzip", gzip.compress(TEXT)[:-5], room=0)
decoder_seed("gzip-garbage", "x-gzip", gzip.compress(b"x") + b"garbage")
decoder_seed("deflate-gzip", "deflate, gzip", gzip.compress(zlib.compress(TEXT)))
decoder_seed("bomb", "gzip", gzip.compress(b"\x00" * (4 << 20)), room=4, cut=255)
decoder_seed("five", "gzip, gzip, gzip, gzip, gzip", gzip.compress(gzip.compress(gzip.compress(gzip.compress(gzip.compress(b"five"))))))
decoder_seed("six", "gzip, gzip, gzip, gzip, gzip, gzip", gzip.compress(b"six"))
for name, make, encoding in [("br", brotli, "br"), ("zstd", zstd, "zstd")]:
    body = make(TEXT)
    if body:
        decoder_seed(name, encoding, body)
        decoder_seed(name + "-cut", encoding, body[: len(body) // 2])
br_inner = brotli(gzip.compress(TEXT))
if br_inner:
    decoder_seed("gzip-br", "gzip, br", br_inner)
zstd_frames = zstd(TEXT[:50]), zstd(TEXT[50:])
if all(zstd_frames):
    decoder_seed("zstd-frames", "identity, zstd", zstd_frames[0] + zstd_frames[1])

# ---------------------------------------------------------------- content-disposition: [choice] + value
dispositions = {
    "plain": 'attachment; filename="report.pdf"',
    "extended": "attachment; filename*=UTF-8''%e2%82%ac%20rates.txt; filename=\"fallback.txt\"",
    "latin1": "attachment; filename*=iso-8859-1'en'%A3%20rates",
    "traversal": 'attachment; filename="../../etc/passwd"',
    "windows": 'attachment; filename="C:\\\\Windows\\\\evil.exe"',
    "dotfile": 'attachment; filename=".bashrc"',
    "controls": 'attachment; filename="a\x01b\u202ec\u200bd.txt"',
    "marks": 'attachment; filename="a' + "\u0301" * 50 + '.txt"',
    "long": 'attachment; filename="' + "\u00e9" * 300 + '.tar.gz"',
    "escapes": 'attachment; filename="a\\"b\\\\c"; filename*=UTF-8\'\'%ZZ%',
    "empty": 'attachment; filename=""; filename*=',
}
for index, (name, text) in enumerate(dispositions.items()):
    write("content-disposition", name, bytes([index % 2]) + text.encode("utf-8"))

# ---------------------------------------------------------------- loopback-request: [mode, cut] + bytes
requests = {
    "get": (0, "GET /bytes/10?seed=1&n=" + HUGE + " HTTP/1.1\r\nHost: h\r\n\r\n"),
    "post": (0, "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775808\r\n\r\n"),
    "chunked-head": (0, "PUT http://h/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"),
    "chunks": (1, "5;ext=1\r\nhello\r\n0000000000000000006\r\n world\r\n0\r\nTrailer: x\r\n\r\n"),
    "chunk-huge": (1, "ffffffffffffffff\r\nx\r\n"),
    "chunk-15": (1, "fffffffffffffff\r\nxyz"),
    "range": (2, "bytes=0-9223372036854775807"),
    "suffix": (2, "bytes=-" + HUGE),
    "multi-range": (2, "bytes=0-1,5-"),
}
for index, (name, (mode, text)) in enumerate(requests.items()):
    write("loopback-request", name, bytes([mode, index * 13 % 256]) + text.encode())
