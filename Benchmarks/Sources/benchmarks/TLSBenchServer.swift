import BenchmarkSupport
import Foundation

/// The TLS benchmark's server: a PKI made with the `openssl` command in a temporary directory
/// (an EC P-256 CA and a leaf for 127.0.0.1), and a small python3 asyncio HTTP/1.1 server (one
/// process, one thread) listening twice — cleartext and TLS — with the same code, so the two are
/// compared on equal terms. Every answer is 64 bytes; `Connection: close` in a request closes the
/// connection after the answer. The TLS side issues no session tickets (every new connection is a
/// full handshake). `GET /stats` answers `connections=N requests=M` (both listeners together).
final class TLSBenchServer: Sendable {
    let cleartextURL: URL
    let tlsURL: URL
    let caFile: URL
    let directory: URL
    private let process: Process

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("an-tls-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.run("/bin/sh", ["-c", Self.pkiScript], in: directory)
        let script = directory.appendingPathComponent("server.py")
        try Data(Self.serverScript.utf8).write(to: script)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, directory.appendingPathComponent("leaf.pem").path, directory.appendingPathComponent("leaf.key").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        self.process = process
        // The first line is `PORTS <cleartext> <tls>`.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let fields = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard fields.count >= 3, fields[0] == "PORTS", let plain = Int(fields[1]), let tls = Int(fields[2]) else {
            process.terminate()
            throw BenchError("the TLS benchmark server did not start (python3 with ssl needed)")
        }
        cleartextURL = URL(string: "http://127.0.0.1:\(plain)")!
        tlsURL = URL(string: "https://127.0.0.1:\(tls)")!
        caFile = directory.appendingPathComponent("ca.pem")
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func run(_ tool: String, _ arguments: [String], in directory: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("making the benchmark PKI with openssl failed") }
    }

    private static let pkiScript = """
    set -e
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key
    openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj "/CN=AsyncNetworking Bench Root" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out leaf.key
    openssl req -new -key leaf.key -out leaf.csr -subj "/CN=127.0.0.1"
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n' > leaf.ext
    openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 2 -extfile leaf.ext
    """

    private static let serverScript = #"""
    import asyncio, ssl, sys
    cert, key = sys.argv[1:3]
    BODY = b"x" * 64
    KEEP = b"HTTP/1.1 200 OK\r\nContent-Length: 64\r\nContent-Type: application/octet-stream\r\n\r\n" + BODY
    CLOSE = b"HTTP/1.1 200 OK\r\nContent-Length: 64\r\nConnection: close\r\n\r\n" + BODY
    stats = {"connections": 0, "requests": 0}

    async def handle(reader, writer):
        stats["connections"] += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lowered = head.lower()
                if lowered.startswith(b"get /stats "):
                    text = ("connections=%d requests=%d" % (stats["connections"], stats["requests"])).encode()
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(text) + text)
                    await writer.drain()
                    continue
                stats["requests"] += 1
                close = b"connection: close" in lowered
                writer.write(CLOSE if close else KEEP)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ssl.SSLError, OSError):
            pass
        finally:
            writer.close()

    async def main():
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        context.options |= ssl.OP_NO_TICKET
        context.num_tickets = 0
        context.set_alpn_protocols(["http/1.1"])
        plain = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=512)
        tls = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context, backlog=512)
        print("PORTS %d %d" % (plain.sockets[0].getsockname()[1], tls.sockets[0].getsockname()[1]), flush=True)
        await asyncio.gather(plain.serve_forever(), tls.serve_forever())

    asyncio.run(main())
    """#
}

/// A benchmark setup failure.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
