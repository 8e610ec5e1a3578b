import Foundation
import Testing
@testable import LoopbackServer

/// The routes, over real sockets.
@Suite struct RouteTests {
    @Test func rangeAndIfRange() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            let full = try client.get("/bytes/1000?seed=7")
            #expect(full.status == 200)
            #expect(full.header("Accept-Ranges") == "bytes")
            #expect(full.body == Array(SeededBytes.data(seed: 7, offset: 0, count: 1000)))
            let etag = try #require(full.header("ETag"))
            #expect(etag == "\"b-1000-7\"")
            let modified = try #require(full.header("Last-Modified"))

            let partial = try client.get("/bytes/1000?seed=7", headers: ["Range: bytes=100-199"])
            #expect(partial.status == 206)
            #expect(partial.header("Content-Range") == "bytes 100-199/1000")
            #expect(partial.body == Array(full.body[100..<200]))

            let suffix = try client.get("/bytes/1000", headers: ["Range: bytes=-10"])
            #expect(suffix.body == Array(BytePattern.data(offset: 990, count: 10)))

            #expect(try client.get("/bytes/1000?seed=7", headers: ["Range: bytes=900-", "If-Range: \(etag)"]).status == 206)
            #expect(try client.get("/bytes/1000?seed=7", headers: ["Range: bytes=900-", "If-Range: \(modified)"]).status == 206)
            let stale = try client.get("/bytes/1000?seed=7", headers: ["Range: bytes=900-", "If-Range: \"old\""])
            #expect(stale.status == 200 && stale.body.count == 1000)

            let unsatisfiable = try client.get("/bytes/1000", headers: ["Range: bytes=1000-"])
            #expect(unsatisfiable.status == 416)
            #expect(unsatisfiable.header("Content-Range") == "bytes */1000")
            #expect(try client.get("/bytes/1000?norange=1", headers: ["Range: bytes=0-1"]).status == 200)
            #expect(try client.get("/bytes/10?etag=abc").header("ETag") == "\"abc\"")
        }
    }

    @Test func versionedResource() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            let first = try client.get("/versioned/64")
            #expect(first.header("ETag") == "\"v0-64\"")
            server.resourceVersion = 3
            let second = try client.get("/versioned/64", headers: ["Range: bytes=10-", "If-Range: \"v0-64\""])
            #expect(second.status == 200)
            #expect(second.header("ETag") == "\"v3-64\"")
            #expect(second.body == Array(SeededBytes.data(seed: 3, offset: 0, count: 64)))
            #expect(second.header("Last-Modified") != first.header("Last-Modified"))
            #expect(server.bumpResourceVersion() == 4)
        }
    }

    @Test func dropsCloseAfterKBytes() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            try client.request("GET", "/bytes/1000?drop=100")
            let (status, headers) = try client.readHead()
            #expect(status == 200)
            #expect(headers.first { $0.0 == "Content-Length" }?.1 == "1000")
            #expect(try client.readToEnd() == Array(BytePattern.data(offset: 0, count: 100)))

            let ranged = try TestClient(port: server.port)
            #expect(try ranged.get("/bytes/1000?drop=100", headers: ["Range: bytes=0-499"]).body.count == 500)

            let drop = try TestClient(port: server.port)
            try drop.request("GET", "/drop?after=50&total=500")
            _ = try drop.readHead()
            #expect(try drop.readToEnd().count == 50)
            #expect(server.stats.clientAborts == 0)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/gzip") || FileManager.default.isExecutableFile(atPath: "/usr/bin/gzip")))
    func gzipBomb() throws {
        try withServer { server in
            let response = try TestClient(port: server.port).get("/gzip/10000000")
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.body.count == Int(response.header("Content-Length") ?? "") && response.body.count < 70_000)
            let output = try gunzip(response.body)
            #expect(output.count == 10_000_000)
            #expect(output.allSatisfy { $0 == 0 })
        }
    }

    @Test func multipartRoundTrip() throws {
        try withServer { server in
            let file = Array(SeededBytes.data(seed: 5, offset: 0, count: 5000))
            var body = Array("--B0undary\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhello wörld\r\n".utf8)
            body += Array("--B0undary\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"data.bin\"\r\n".utf8)
            body += Array("Content-Type: application/octet-stream\r\n\r\n".utf8) + file + Array("\r\n--B0undary--\r\n".utf8)
            let client = try TestClient(port: server.port)
            try client.request("POST", "/multipart", headers: ["Content-Type: multipart/form-data; boundary=B0undary"], body: body)
            let parts = try #require(try client.readResponse().json()["parts"] as? [[String: Any]])
            #expect(parts.count == 2)
            #expect(parts[0]["name"] as? String == "title")
            #expect(parts[0]["value"] as? String == "hello wörld")
            #expect(parts[0]["filename"] is NSNull)
            #expect(parts[1]["filename"] as? String == "data.bin")
            #expect(parts[1]["contentType"] as? String == "application/octet-stream")
            #expect(parts[1]["size"] as? Int == 5000)
            #expect(parts[1]["checksum"] as? String == String(Checksum.fnv1a64(file)))

            try client.request("POST", "/multipart", headers: ["Content-Type: multipart/form-data; boundary=B0undary"], body: Array("junk".utf8))
            let bad = try client.readResponse()
            #expect(bad.status == 400 && bad.text.contains("malformed multipart"))
        }
    }

    @Test func statusRedirectsAndAuth() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            let teapot = try client.get("/status/418?header=X-A:%201&header=X-B:2")
            #expect(teapot.status == 418 && teapot.text == "status 418")
            #expect(teapot.header("X-A") == "1" && teapot.header("X-B") == "2")
            #expect(try client.get("/status/401").header("WWW-Authenticate") == "Basic realm=\"loopback\"")
            #expect(try client.get("/status/401?noauth=1").header("WWW-Authenticate") == nil)
            let empty = try client.get("/status/204")
            #expect(empty.status == 204 && empty.header("Content-Length") == nil)

            let hop = try client.get("/redirect/3?status=307")
            #expect(hop.status == 307 && hop.header("Location") == "/redirect/2?status=307")
            #expect(try client.get("/redirect/1?to=/json").header("Location") == "/json")
            #expect(try client.get("/redirect/0").text == "redirected")
            #expect(try client.get("/redirect-to?url=http%3A%2F%2F127.0.0.1%2Fx&status=301").header("Location") == "http://127.0.0.1/x")
            #expect(try client.get("/redirect-loop").header("Location") == "/redirect-loop")

            let denied = try client.get("/basic-auth/user/pa%20ss")
            #expect(denied.status == 401 && denied.header("WWW-Authenticate") != nil)
            let token = Data("user:pa ss".utf8).base64EncodedString()
            let allowed = try client.get("/basic-auth/user/pa%20ss", headers: ["Authorization: Basic \(token)"])
            #expect(allowed.status == 200)
            #expect(try allowed.json()["user"] as? String == "user")
            #expect(try client.get("/nothing/here").status == 404)
        }
    }

    @Test func contentRoutes() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            let json = try client.get("/json?type=text/html")
            #expect(json.header("Content-Type") == "text/html")
            #expect(try json.json()["name"] as? String == "loopback")
            let latin = try client.get("/text?charset=iso-8859-1")
            #expect(latin.body == Array("héllo wörld".data(using: .isoLatin1)!))
            #expect(try client.get("/text").text == "héllo wörld")
            let headers = try client.get("/response-headers?Content-Disposition=attachment%3B%20filename%3D%22a.txt%22")
            #expect(headers.header("Content-Disposition") == "attachment; filename=\"a.txt\"")
            #expect(headers.text == "ok")
            let stream = try client.get("/stream/100000?chunk=1000")
            #expect(stream.header("Transfer-Encoding") == "chunked")
            #expect(stream.body == Array(BytePattern.data(offset: 0, count: 100_000)))
            let bigChunks = try client.get("/stream/1000000?chunk=600000")
            #expect(bigChunks.body == Array(BytePattern.data(offset: 0, count: 1_000_000)))
            let start = Date()
            let drip = try client.get("/drip?bytes=10&delay=20&chunks=5")
            #expect(drip.body == Array(BytePattern.data(offset: 0, count: 10)))
            #expect(Date().timeIntervalSince(start) >= 0.08)
            try client.request("GET", "/continue")
            let interim = try client.readResponse(keepInterim: true)
            #expect(interim.status == 100)
            #expect(try client.readResponse().text == "after continue")
        }
    }

    @Test func faults() throws {
        try withServer { server in
            let reset = try TestClient(port: server.port)
            try reset.request("GET", "/fault/reset")
            #expect(try reset.readToEnd().isEmpty)
            let close = try TestClient(port: server.port)
            try close.request("GET", "/fault/close")
            #expect(try close.readToEnd().isEmpty)
            let badStatus = try TestClient(port: server.port)
            try badStatus.request("GET", "/fault/bad-status-line")
            #expect(String(decoding: try badStatus.readToEnd(), as: UTF8.self) == "HTTP/1.1 abc\r\n\r\n")
            let badHeader = try TestClient(port: server.port)
            try badHeader.request("GET", "/fault/bad-header")
            #expect(String(decoding: try badHeader.readToEnd(), as: UTF8.self).contains("this is not a header\r\n"))
            let short = try TestClient(port: server.port)
            try short.request("GET", "/fault/short-body")
            _ = try short.readHead()
            #expect(try short.readToEnd().count == 10)
            #expect(server.requests.count == 5)
            #expect(eventually { server.stats.openConnections == 0 })
        }
    }
}
