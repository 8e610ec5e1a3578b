import AsyncNetworking
/// The cases of ``WebSocketFuzzingServer``, after Autobahn|Testsuite's client categories (its
/// `autobahntestsuite/case/` files): 1 framing, 2 pings/pongs, 3 reserved bits, 4 opcodes,
/// 5 fragmentation, 6 UTF-8 handling (with fail-fast inside fragmented and incomplete messages),
/// 7 close handling, 9 limits (sizes and counts scaled down so the run takes seconds), 12 and 13
/// `permessage-deflate` (payload kinds and sizes; window bits and context-takeover answers).
/// Written anew from the cases' descriptions; the numbering follows Autobahn's where a case has
/// a counterpart.
enum WebSocketFuzzingCases {
    static let script = #"""

# ---------------------------------------------------------------- helpers
def sends(*parts, chop=None):
    data = b"".join(parts)
    return lambda c: c.send(data, chop)

def staged(*stages):
    """Sends each stage, then pauses (Autobahn's continueLater) before the next: ("timeout", A/B...)."""
    def run(c):
        for index, stage in enumerate(stages):
            if index and not c.pause(PAUSE, "ABCDEFGH"[index - 1]):
                return
            c.send(stage)
    return run

PAUSE = 0.3          # how long a part must be accepted before the next is sent
FAST = 5.0           # how long a fail-fast may take before it counts as late (NON-STRICT)

def fail_fast(first, bad, rest):
    """6.4.x: `first` must be accepted; after `bad` the client must fail at once (OK); failing only
    after `rest` is NON-STRICT."""
    def run(c):
        c.send(first)
        if not c.pause(PAUSE, "A"):
            return
        c.send(bad)
        if not c.pause(FAST, "B"):
            return
        c.send(rest)
    return run

HELLO = "Hello, world!"
KOSME = "κόσμε".encode()

# ---------------------------------------------------------------- 1 framing
for index, n in enumerate([0, 125, 126, 127, 128, 65535, 65536]):
    add("1.1.%d" % (index + 1), sends(frame(1, b"*" * n)), [msg(b"*" * n)])
    add("1.2.%d" % (index + 1), sends(frame(2, b"\xfe" * n)), [msg(b"\xfe" * n, True)])
add("1.1.8", sends(frame(1, b"*" * 65536), chop=997), [msg(b"*" * 65536)])
add("1.2.8", sends(frame(2, b"\xfe" * 65536), chop=997), [msg(b"\xfe" * 65536, True)])

# ---------------------------------------------------------------- 2 pings/pongs
add("2.1", sends(frame(9)), [pong(b"")])
add("2.2", sends(frame(9, b"Hello, world!")), [pong(b"Hello, world!")])
add("2.3", sends(frame(9, b"\x00\xff\xfe\xfd\xfc\xfb\x00\xff")), [pong(b"\x00\xff\xfe\xfd\xfc\xfb\x00\xff")])
add("2.4", sends(frame(9, b"\xfe" * 125)), [pong(b"\xfe" * 125)])
add("2.5", sends(frame(9, b"\xfe" * 126)), [], close=FAIL(1002))
add("2.6", sends(frame(9, b"\xfe" * 125), chop=1), [pong(b"\xfe" * 125)])
add("2.7", sends(frame(10)), [])
add("2.8", sends(frame(10, b"unsolicited pong payload")), [])
add("2.9", sends(frame(10, b"unsolicited pong payload"), frame(9, b"ping payload")), [pong(b"ping payload")])
pings = [("payload-%d" % i).encode() for i in range(10)]
add("2.10", sends(*[frame(9, p) for p in pings]), [pong(p) for p in pings])
add("2.11", sends(*[frame(9, p) for p in pings], chop=1), [pong(p) for p in pings])

# ---------------------------------------------------------------- 3 reserved bits
add("3.1", sends(frame(1, HELLO.encode(), rsv=1)), [], close=FAIL(1002))
add("3.2", sends(frame(1, HELLO.encode()), frame(1, HELLO.encode(), rsv=2), frame(9)), [msg(HELLO)], [], close=FAIL(1002))
add("3.3", staged(frame(1, HELLO.encode()), frame(1, HELLO.encode(), rsv=3) + frame(9)), [msg(HELLO), ("timeout", "A")], [("timeout", "A")], close=FAIL(1002))
add("3.4", sends(frame(1, HELLO.encode()), frame(1, HELLO.encode(), rsv=4), frame(9), chop=1), [msg(HELLO)], [], close=FAIL(1002))
add("3.5", sends(frame(2, b"\x00\xff\xfe\xfd\xfc\xfb\x00\xff", rsv=5)), [], close=FAIL(1002))
add("3.6", sends(frame(9, HELLO.encode(), rsv=6)), [], close=FAIL(1002))
add("3.7", sends(frame(8, close_payload(1000), rsv=7)), [], close=FAIL(1002))

# ---------------------------------------------------------------- 4 opcodes
for index, op in enumerate([3, 4, 5, 6, 7]):
    first = frame(1, HELLO.encode()) if index >= 2 else b""
    payload = b"reserved opcode payload" if index % 2 else b""
    add("4.1.%d" % (index + 1), sends(first, frame(op, payload), frame(9)), [msg(HELLO)] if first else [], [] if first else None, close=FAIL(1002))
for index, op in enumerate([11, 12, 13, 14, 15]):
    first = frame(1, HELLO.encode()) if index >= 2 else b""
    payload = b"reserved opcode payload" if index % 2 else b""
    add("4.2.%d" % (index + 1), sends(first, frame(op, payload), frame(9)), [msg(HELLO)] if first else [], [] if first else None, close=FAIL(1002))

# ---------------------------------------------------------------- 5 fragmentation
F1, F2 = b"fragment1", b"fragment2"
add("5.1", sends(frame(9, F1, fin=False), frame(0, F2)), [], close=FAIL(1002))
add("5.2", sends(frame(10, F1, fin=False), frame(0, F2)), [], close=FAIL(1002))
two = (frame(1, F1, fin=False), frame(0, F2))
add("5.3", sends(*two), [msg(F1 + F2)])
add("5.4", staged(*two), [("timeout", "A"), msg(F1 + F2)])
add("5.5", sends(*two, chop=1), [msg(F1 + F2)])
withping = (frame(1, F1, fin=False), frame(9, b"pongme!"), frame(0, F2))
add("5.6", sends(*withping), [pong(b"pongme!"), msg(F1 + F2)])
add("5.7", staged(*withping), [("timeout", "A"), pong(b"pongme!"), ("timeout", "B"), msg(F1 + F2)])
add("5.8", sends(*withping, chop=1), [pong(b"pongme!"), msg(F1 + F2)])
nothing = (frame(0, F1), frame(1, F2))
add("5.9", sends(*nothing), [], close=FAIL(1002))
add("5.10", staged(*nothing), [], close=FAIL(1002))
add("5.11", sends(*nothing, chop=1), [], close=FAIL(1002))
nothing_open = (frame(0, F1, fin=False), frame(1, F2))
add("5.12", sends(*nothing_open), [], close=FAIL(1002))
add("5.13", staged(*nothing_open), [], close=FAIL(1002))
add("5.14", sends(*nothing_open, chop=1), [], close=FAIL(1002))
add("5.15", sends(frame(1, F1, fin=False), frame(0, F2), frame(0, b"fragment3", fin=False), frame(1, b"fragment4")),
    [msg(F1 + F2)], [], close=FAIL(1002))
add("5.16", sends(*([frame(0, F1, fin=False), frame(1, F2, fin=False), frame(0, b"fragment3")] * 2)), [], close=FAIL(1002))
add("5.17", sends(*([frame(0, F1), frame(1, F2, fin=False), frame(0, b"fragment3")] * 2)), [], close=FAIL(1002))
add("5.18", sends(frame(1, F1, fin=False), frame(1, F2)), [], close=FAIL(1002))
def five(c, chop):
    parts = [b"fragment%d" % i for i in range(1, 6)]
    c.send(frame(1, parts[0], fin=False) + frame(0, parts[1], fin=False) + frame(9, b"pongme 1!"), chop)
    if not c.pause(PAUSE, "A"):
        return
    c.send(frame(0, parts[2], fin=False) + frame(0, parts[3], fin=False) + frame(9, b"pongme 2!"), chop)
    if not c.pause(PAUSE, "B"):
        return
    c.send(frame(0, parts[4]), chop)
five_expected = [pong(b"pongme 1!"), ("timeout", "A"), pong(b"pongme 2!"), ("timeout", "B"), msg(b"".join(b"fragment%d" % i for i in range(1, 6)))]
add("5.19", lambda c: five(c, None), five_expected)
add("5.20", lambda c: five(c, 1), five_expected)

# ---------------------------------------------------------------- 6 UTF-8 handling
add("6.1.1", sends(frame(1, b"")), [msg(b"")])
add("6.1.2", sends(frame(1, b"", fin=False), frame(0, b"", fin=False), frame(0, b"")), [msg(b"")])
add("6.1.3", sends(frame(1, b"", fin=False), frame(0, b"middle frame payload", fin=False), frame(0, b"")), [msg(b"middle frame payload")])
MIXED = "Hello-µ@ßöäüàá-UTF-8!!".encode()
add("6.2.1", sends(frame(1, MIXED)), [msg(MIXED)])
add("6.2.2", sends(frame(1, MIXED[:12], fin=False), frame(0, MIXED[12:])), [msg(MIXED)])
def per_octet(payload):
    return b"".join(frame(1 if i == 0 else 0, payload[i:i + 1], fin=i == len(payload) - 1) for i in range(len(payload)))
add("6.2.3", sends(per_octet(MIXED)), [msg(MIXED)])
add("6.2.4", sends(per_octet(KOSME)), [msg(KOSME)])
BAD = KOSME + b"\xed\xa0\x80" + b"edited"
add("6.3.1", sends(frame(1, BAD)), [], close=FAIL(1007))
add("6.3.2", sends(per_octet(BAD)), [], close=FAIL(1007))
P1, P2, P3 = KOSME, b"\xf4\x90\x80\x80", b"edited"
# 6.4.1/2: in frames; 6.4.3/4: chops of one frame. The bad octet is 0x90 (above U+10FFFF).
add("6.4.1", fail_fast(frame(1, P1, fin=False), frame(0, P2, fin=False), frame(0, P3)),
    [("timeout", "A")], [("timeout", "A"), ("timeout", "B")], close=FAIL(1007))
add("6.4.2", fail_fast(frame(1, P1, fin=False), frame(0, P2[:2], fin=False), frame(0, P2[2:], fin=False) + frame(0, P3)),
    [("timeout", "A")], [("timeout", "A"), ("timeout", "B")], close=FAIL(1007))
whole = frame(1, P1 + P2 + P3)
head = len(whole) - len(P1 + P2 + P3)
add("6.4.3", fail_fast(whole[:head + len(P1)], whole[head + len(P1):head + len(P1) + len(P2)], whole[head + len(P1) + len(P2):]),
    [("timeout", "A")], [("timeout", "A"), ("timeout", "B")], close=FAIL(1007))
add("6.4.4", fail_fast(whole[:head + len(P1)], whole[head + len(P1):head + len(P1) + 2], whole[head + len(P1) + 2:]),
    [("timeout", "A")], [("timeout", "A"), ("timeout", "B")], close=FAIL(1007))
add("6.5.1", sends(frame(1, KOSME)), [msg(KOSME)])
for n in range(1, len(KOSME) + 1):
    prefix = KOSME[:n]
    if utf8_ok(prefix):
        add("6.6.%d" % n, sends(frame(1, prefix)), [msg(prefix)])
    else:
        add("6.6.%d" % n, sends(frame(1, prefix)), [], close=FAIL(1007))
# Markus Kuhn's UTF-8 decoder capability and stress test, by section.
VECTORS = [
    ("6.7", [b"\x00", b"\xc2\x80", b"\xe0\xa0\x80", b"\xf0\x90\x80\x80"]),                           # first of each length
    ("6.8", [b"\xf8\x88\x80\x80\x80", b"\xfc\x84\x80\x80\x80\x80"]),                                  # 5 and 6 octets
    ("6.9", [b"\x7f", b"\xdf\xbf", b"\xef\xbf\xbf", b"\xf4\x8f\xbf\xbf"]),                           # last of each length
    ("6.10", [b"\xf7\xbf\xbf\xbf", b"\xfb\xbf\xbf\xbf\xbf", b"\xfd\xbf\xbf\xbf\xbf\xbf"]),            # beyond U+10FFFF
    ("6.11", [b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xef\xbf\xbd", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80"]),  # other boundaries
    ("6.12", [b"\x80", b"\xbf", b"\x80\xbf", b"\x80\xbf\x80", b"\x80\xbf\x80\xbf", b"\x80\xbf\x80\xbf\x80",
              b"\x80\xbf\x80\xbf\x80\xbf", bytes(range(0x80, 0xc0))]),                               # unexpected continuations
    ("6.13", [b"".join(bytes([b, 0x20]) for b in range(0xc0, 0xe0)), b"".join(bytes([b, 0x20]) for b in range(0xe0, 0xf0)),
              b"".join(bytes([b, 0x20]) for b in range(0xf0, 0xf8)), b"".join(bytes([b, 0x20]) for b in range(0xf8, 0xfc)),
              b"\xfc\x20\xfd\x20"]),                                                                  # lonely start octets
    ("6.14", [b"\xc0", b"\xe0\x80", b"\xf0\x80\x80", b"\xf8\x80\x80\x80", b"\xfc\x80\x80\x80\x80", b"\xdf", b"\xef\xbf",
              b"\xf7\xbf\xbf", b"\xfb\xbf\xbf\xbf", b"\xfd\xbf\xbf\xbf\xbf"]),                        # last octet missing
    ("6.15", [b"\xc0\xe0\x80\xf0\x80\x80\xf8\x80\x80\x80\xfc\x80\x80\x80\x80\xdf\xef\xbf\xf7\xbf\xbf\xfb\xbf\xbf\xbf\xfd\xbf\xbf\xbf\xbf"]),
    ("6.16", [b"\xfe", b"\xff", b"\xfe\xfe\xff\xff"]),                                                # impossible octets
    ("6.17", [b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf", b"\xf8\x80\x80\x80\xaf", b"\xfc\x80\x80\x80\x80\xaf"]),  # overlong "/"
    ("6.18", [b"\xc1\xbf", b"\xe0\x9f\xbf", b"\xf0\x8f\xbf\xbf", b"\xf8\x87\xbf\xbf\xbf", b"\xfc\x83\xbf\xbf\xbf\xbf"]),  # maximal overlong
    ("6.19", [b"\xc0\x80", b"\xe0\x80\x80", b"\xf0\x80\x80\x80", b"\xf8\x80\x80\x80\x80", b"\xfc\x80\x80\x80\x80\x80"]),  # overlong NUL
    ("6.20", [b"\xed\xa0\x80", b"\xed\xad\xbf", b"\xed\xae\x80", b"\xed\xaf\xbf", b"\xed\xb0\x80", b"\xed\xbe\x80", b"\xed\xbf\xbf"]),  # lone surrogates
    ("6.21", [b"\xed\xa0\x80\xed\xb0\x80", b"\xed\xa0\x80\xed\xbf\xbf", b"\xed\xad\xbf\xed\xb0\x80", b"\xed\xad\xbf\xed\xbf\xbf",
              b"\xed\xae\x80\xed\xb0\x80", b"\xed\xae\x80\xed\xbf\xbf", b"\xed\xaf\xbf\xed\xb0\x80", b"\xed\xaf\xbf\xed\xbf\xbf"]),  # paired surrogates
    ("6.22", [b"\xef\xbf\xbe", b"\xef\xbf\xbf", b"\xef\xb7\x90", b"\xef\xb7\xaf", b"\xf0\x9f\xbf\xbe", b"\xf0\x9f\xbf\xbf",
              b"\xf3\xbf\xbf\xbe", b"\xf4\x8f\xbf\xbf"]),                                            # noncharacters (valid)
    ("6.23", [b"\xef\xbf\xbd", b"\x65\x64\x69\x74\x65\x64\xef\xbf\xbd", b"\xf4\x8f\xbf\xbe\xf0\x90\x80\x80"]),  # replacement and mixes
]
for section, vectors in VECTORS:
    for index, vector in enumerate(vectors):
        id = "%s.%d" % (section, index + 1)
        if utf8_ok(vector):
            add(id, sends(frame(1, vector)), [msg(vector)])
        else:
            add(id, sends(frame(1, vector)), [], close=FAIL(1007))

# ---------------------------------------------------------------- 7 close handling
CLEAN = (True, [1000], True)
add("7.1.1", sends(frame(1, b"Hello World!")), [msg(b"Hello World!")])
def close_then(*after):
    def run(c):
        c.send_close(close_payload(1000))
        c.send(b"".join(after))
    return run
add("7.1.2", close_then(frame(8, close_payload(1000))), [])
add("7.1.3", close_then(frame(9, b"ping after close")), [])
add("7.1.4", close_then(frame(1, b"text after close")), [])
def fragment_around_close(c):
    c.send(frame(1, F1, fin=False))
    c.send_close(close_payload(1000))
    c.send(frame(0, F2))
add("7.1.5", fragment_around_close, [])
def close_with(payload):
    def run(c):
        c.send_close(payload)
    return run
add("7.3.1", close_with(b""), [])
add("7.3.2", close_with(b"a"), [], close=(True, [1002], False))
add("7.3.3", close_with(close_payload(1000)), [])
add("7.3.4", close_with(close_payload(1000, b"Hello World!")), [])
add("7.3.5", close_with(close_payload(1000, b"*" * 123)), [])
add("7.3.6", close_with(close_payload(1000, b"*" * 124)), [], close=(True, [1002], False))
add("7.5.1", close_with(close_payload(1000, BAD)), [], close=(True, [1007, 1002], False))
for index, code in enumerate([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]):
    add("7.7.%d" % (index + 1), close_with(close_payload(code)), [], close=(True, [code], True))
for index, code in enumerate([0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999]):
    add("7.9.%d" % (index + 1), close_with(close_payload(code)), [], close=(True, [1002], False))
for index, code in enumerate([5000, 65535]):
    add("7.13.%d" % (index + 1), close_with(close_payload(code)), [], close=(True, [1002], False))

# ---------------------------------------------------------------- 9 limits (scaled down)
def text_of(n):
    return (b"BAsd7&jh23" * (n // 10 + 1))[:n]
def binary_of(n):
    return (bytes(range(256)) * (n // 256 + 1))[:n]
for index, n in enumerate([64 << 10, 256 << 10, 1 << 20, 4 << 20]):
    add("9.1.%d" % (index + 1), sends(frame(1, text_of(n))), [msg(text_of(n))], timeout=60)
    add("9.2.%d" % (index + 1), sends(frame(2, binary_of(n))), [msg(binary_of(n), True)], timeout=60)
def fragmented(op, payload, size):
    return b"".join(frame(op if i == 0 else 0, payload[i:i + size], fin=i + size >= len(payload)) for i in range(0, len(payload), size))
for index, size in enumerate([64, 256, 1 << 10, 4 << 10, 64 << 10, 1 << 20]):
    add("9.3.%d" % (index + 1), sends(fragmented(1, text_of(1 << 20), size)), [msg(text_of(1 << 20))], timeout=60)
    add("9.4.%d" % (index + 1), sends(fragmented(2, binary_of(1 << 20), size)), [msg(binary_of(1 << 20), True)], timeout=60)
for index, chop in enumerate([64, 128, 256, 512, 1024, 2048]):
    add("9.5.%d" % (index + 1), sends(frame(1, text_of(256 << 10)), chop=chop), [msg(text_of(256 << 10))], timeout=60)
    add("9.6.%d" % (index + 1), sends(frame(2, binary_of(256 << 10)), chop=chop), [msg(binary_of(256 << 10), True)], timeout=60)
def round_trips(op, payload, count):
    def run(c):
        for i in range(count):
            c.send(frame(op, payload))
            if not c.wait(lambda: c.ended() or len(c.received) > i, 30) or c.ended():
                return
    return run
for index, n in enumerate([0, 16, 64, 256, 1024, 4096]):
    add("9.7.%d" % (index + 1), round_trips(1, text_of(n), 100), [msg(text_of(n))] * 100, timeout=60)
    add("9.8.%d" % (index + 1), round_trips(2, binary_of(n), 100), [msg(binary_of(n), True)] * 100, timeout=60)

# ---------------------------------------------------------------- 12, 13 permessage-deflate
WORDS = b"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore".split()
def payload_of(kind, n, seed):
    rng = random.Random(seed)
    if kind == 1:
        out = b" ".join(rng.choice(WORDS) for _ in range(n // 3 + 1))
    elif kind == 2:
        out = b"".join(b'{"id":%d,"name":"%s","tags":["a","b"],"ok":true},' % (rng.randrange(10 ** 6), rng.choice(WORDS)) for _ in range(n // 40 + 1))
    elif kind == 3:
        out = b"".join(b"<div class=\"%s\"><p>%s</p></div>\n" % (rng.choice(WORDS), rng.choice(WORDS)) for _ in range(n // 30 + 1))
    elif kind == 4:
        out = bytes(rng.getrandbits(8) for _ in range(n))
    else:
        out = bytes((i * i + rng.randrange(4)) & 0xFF for i in range(n))
    return out[:n]
COUNT = 20
def compressed_echo(kind, n):
    binary = kind >= 4
    def run(c):
        for i in range(COUNT):
            c.send(c.message(2 if binary else 1, payload_of(kind, n, i), fragment=256 if i % 2 else None))
    return run, [msg(payload_of(kind, n, i), binary) for i in range(COUNT)]
SIZES = [16, 64, 256, 1024, 4096, 16384, 65536, 131072]
STANDARD = {}
for kind in range(1, 6):
    for index, n in enumerate(SIZES):
        run, expected = compressed_echo(kind, n)
        add("12.%d.%d" % (kind, index + 1), run, expected, offer=STANDARD, accept="", timeout=60)
ANSWERS = [
    (STANDARD, ""),
    (STANDARD, "client_no_context_takeover"),
    (STANDARD, "client_max_window_bits=9"),
    (STANDARD, "client_max_window_bits=15"),
    (STANDARD, "client_no_context_takeover; client_max_window_bits=9"),
    (STANDARD, "client_no_context_takeover; client_max_window_bits=15"),
    ({"serverNoContextTakeover": True, "serverMaxWindowBits": 9}, "server_no_context_takeover; server_max_window_bits=9"),
]
for sub, (offer, accept) in enumerate(ANSWERS):
    for index, n in enumerate(SIZES):
        run, expected = compressed_echo(1, n)
        add("13.%d.%d" % (sub + 1, index + 1), run, expected, offer=offer, accept=accept, timeout=60)

"""#
}
