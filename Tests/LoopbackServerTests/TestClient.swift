import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test failure in the tiny socket client.
struct ClientError: Error, CustomStringConvertible {
    let description: String
}

/// A parsed response read by ``TestClient``.
struct TestResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw ClientError(description: "body is not a JSON object: \(text)")
        }
        return object
    }
}

/// A tiny blocking HTTP/1.1 client over a raw socket, so tests control every byte on the wire.
/// Every read has a timeout, so a broken server fails a test instead of hanging it.
final class TestClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, timeout: Double = 60) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ClientError(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw ClientError(description: "connect failed, errno \(errno)")
        }
        var interval = timeval()
        interval.tv_sec = .init(timeout)
        interval.tv_usec = .init(timeout.truncatingRemainder(dividingBy: 1) * 1_000_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    deinit {
        close(fd)
    }

    /// Closes abruptly with RST, the way a killed client vanishes.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { rawSend(fd, $0.baseAddress! + offset, bytes.count - offset, flags) }
            guard sent > 0 else { throw ClientError(description: "send failed, errno \(errno)") }
            offset += sent
        }
    }

    /// Sends a request with `Host` and optional `Content-Length` body.
    func request(_ method: String = "GET", _ target: String, headers: [String] = [], body: [UInt8]? = nil) throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for header in headers { head += header + "\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + (body ?? []))
    }

    /// `GET target` and read the response.
    func get(_ target: String, headers: [String] = []) throws -> TestResponse {
        try request("GET", target, headers: headers)
        return try readResponse()
    }

    /// Reads more bytes; returns false at end of stream. Throws on timeout or error.
    @discardableResult
    func receiveMore() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        if received < 0 {
            if errno == ECONNRESET { return false }
            throw ClientError(description: "recv failed or timed out, errno \(errno)")
        }
        buffer.append(contentsOf: chunk[0..<received])
        return received > 0
    }

    /// Reads until the server closes; returns everything not yet consumed.
    func readToEnd() throws -> [UInt8] {
        while try receiveMore() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Reads one response. Interim 1xx responses are skipped unless `keepInterim`.
    /// `forHead` means the request was HEAD (no body regardless of Content-Length).
    func readResponse(forHead: Bool = false, keepInterim: Bool = false) throws -> TestResponse {
        while true {
            let (status, headers) = try readHead()
            if (100..<200).contains(status) && !keepInterim { continue }
            var response = TestResponse(status: status, headers: headers, body: [])
            if forHead || (100..<200).contains(status) || status == 204 || status == 304 { return response }
            if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
                response.body = try readChunkedBody()
            } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
                response.body = try take(length)
            } else {
                response.body = try readToEnd()
            }
            return response
        }
    }

    func readHead() throws -> (Int, [(String, String)]) {
        let marker: [UInt8] = [13, 10, 13, 10]
        var end: Int?
        while true {
            if buffer.count >= 4 {
                end = (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(marker) }
                if end != nil { break }
            }
            guard try receiveMore() else { throw ClientError(description: "connection closed before a response head") }
        }
        let headText = String(decoding: buffer[0..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        let lines = headText.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw ClientError(description: "bad status line \(lines[0])")
        }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return (status, headers)
    }

    /// Takes exactly `count` bytes, reading as needed.
    func take(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try receiveMore() else { throw ClientError(description: "closed after \(buffer.count) of \(count) bytes") }
        }
        let result = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return result
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[0..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                buffer.removeFirst(newline + 1)
                return line
            }
            guard try receiveMore() else { throw ClientError(description: "closed inside chunked framing") }
        }
    }

    private func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try readLine()
            guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                throw ClientError(description: "bad chunk size \(sizeLine)")
            }
            if size == 0 {
                while try !readLine().isEmpty {}
                return body
            }
            body += try take(size)
            _ = try readLine()
        }
    }
}

/// The C `send`, which `TestClient.send` shadows inside the class.
private func rawSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    send(fd, bytes, count, flags)
}

/// Polls `condition` every 10 ms for up to `seconds`; returns whether it became true. The default
/// only catches hangs: tests run in parallel on busy machines and assert outcomes, not speeds.
func eventually(within seconds: Double = 60, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// Runs `count` blocking bodies on their own threads and waits for all of them.
func runConcurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
