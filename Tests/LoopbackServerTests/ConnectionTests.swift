import Foundation
import Testing
@testable import LoopbackServer

/// Connection handling: keep-alive, pipelining, request bodies, HEAD, malformed requests.
@Suite struct ConnectionTests {
    @Test func keepAliveReusesTheConnection() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            #expect(try client.get("/json").status == 200)
            #expect(try client.get("/bytes/5").body == [0, 1, 2, 3, 4])
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests[0].connectionID == requests[1].connectionID)
            #expect(server.stats.connectionCount == 1)
            // Connection: close is honoured.
            try client.request("GET", "/json", headers: ["Connection: close"])
            let last = try client.readResponse()
            #expect(last.header("Connection") == "close")
            #expect(try client.readToEnd().isEmpty)
        }
    }

    @Test func pipelinedRequests() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            try client.send(
                "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                    + "HEAD /bytes/100 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            let upload = try client.readResponse().json()
            #expect(upload["bytes"] as? Int == 5)
            #expect(upload["checksum"] as? String == String(Checksum.fnv1a64(Array("hello".utf8))))
            let echo = try client.readResponse().json()
            #expect(echo["body"] as? String == "abc")
            let head = try client.readResponse(forHead: true)
            #expect(head.header("Content-Length") == "100" && head.body.isEmpty)
            #expect(try client.readResponse().body == [0, 1, 2])
            #expect(server.requests.map(\.path) == ["/upload", "/echo", "/bytes/100", "/bytes/3"])
        }
    }

    @Test func chunkedUploadWithContinue() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            try client.send("PUT /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
            let interim = try client.readResponse(keepInterim: true)
            #expect(interim.status == 100)
            let payload = Array(SeededBytes.data(seed: 9, offset: 0, count: 300_000))
            var wire: [UInt8] = []
            var offset = 0
            for size in [1, 100, 65_536, 200_000] where offset < payload.count {
                let piece = payload[offset..<min(payload.count, offset + size)]
                wire += Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
                offset += piece.count
            }
            wire += Array("\(String(payload.count - offset, radix: 16))\r\n".utf8) + payload[offset...] + Array("\r\n0\r\n\r\n".utf8)
            try client.send(wire)
            let json = try client.readResponse().json()
            #expect(json["bytes"] as? Int == payload.count)
            #expect(json["checksum"] as? String == String(Checksum.fnv1a64(payload)))
            #expect(json["chunked"] as? Bool == true)
            let recorded = try #require(server.requests.last)
            #expect(recorded.bodyLength == payload.count)
            #expect(recorded.bodyChecksum == Checksum.fnv1a64(payload))
            #expect(recorded.header("transfer-encoding") == "chunked")
        }
    }

    @Test func echoDescribesTheRequest() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            try client.request("POST", "/echo?a=1&b=x%2Fy", headers: ["X-Custom: yes", "Content-Type: text/plain"], body: Array("héllo".utf8))
            let response = try client.readResponse()
            #expect(response.header("Content-Type") == "application/json")
            let json = try response.json()
            #expect(json["method"] as? String == "POST")
            #expect(json["path"] as? String == "/echo")
            #expect(json["query"] as? [String: String] == ["a": "1", "b": "x/y"])
            #expect((json["headers"] as? [String: String])?["x-custom"] == "yes")
            #expect(json["bodyLength"] as? Int == 6)
            #expect(json["body"] as? String == "héllo")
            #expect(json["bodyBase64"] as? String == Data("héllo".utf8).base64EncodedString())
            try client.request("POST", "/echo", body: [0xFF, 0xFE])
            let binary = try client.readResponse().json()
            #expect(binary["body"] is NSNull)
        }
    }

    @Test func malformedRequestGets400AndClose() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            try client.send("GET / HTTP/1.1\r\nthis is not a header\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 400)
            #expect(try client.readToEnd().isEmpty)
            let chunked = try TestClient(port: server.port)
            try chunked.send("POST /upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            #expect(try chunked.readResponse().status == 400)
            #expect(server.stats.requestCount == 1)
            #expect(server.stats.completedResponses == 1 && server.stats.inFlight == 0)
        }
    }

    @Test func http10ClosesAfterResponse() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            try client.send("GET /stream/10 HTTP/1.0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.body == Array(BytePattern.data(offset: 0, count: 10)))
            #expect(response.header("Transfer-Encoding") == nil)
        }
    }

    @Test func largeBodyStreams() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            let length = 32 << 20
            try client.request("GET", "/bytes/\(length)")
            let (status, headers) = try client.readHead()
            #expect(status == 200)
            #expect(headers.first { $0.0 == "Content-Length" }?.1 == String(length))
            var received = 0
            var last: [UInt8] = []
            while received < length {
                let piece = try client.take(min(1 << 20, length - received))
                received += piece.count
                last = piece
            }
            #expect(last.last == BytePattern.byte(at: length - 1))
            #expect(eventually { server.stats.completedResponses == 1 })
        }
    }
}
