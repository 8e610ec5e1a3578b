import Foundation
import Synchronization
import Testing
@testable import LoopbackServer

/// Starts a server, runs `body`, and always stops the server.
func withServer<T>(_ body: (LoopbackServer) throws -> T) throws -> T {
    let server = try LoopbackServer()
    defer { server.stop() }
    return try body(server)
}

@Suite struct LifecycleTests {
    @Test func startServeStop() throws {
        let server = try LoopbackServer()
        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.url("/bytes/10?seed=1").absoluteString == "http://127.0.0.1:\(server.port)/bytes/10?seed=1")
        let client = try TestClient(port: server.port)
        let response = try client.get("/json")
        #expect(response.status == 200)
        #expect(response.header("Server") == "LoopbackServer")
        server.stop()
        server.stop() // idempotent
        #expect(throws: ClientError.self) { try TestClient(port: server.port) }
        #expect(server.stats.openConnections == 0)
        #expect(server.stats.completedResponses == 1)
    }

    @Test func deinitStops() throws {
        var port: UInt16 = 0
        do {
            let server = try LoopbackServer()
            port = server.port
            _ = try TestClient(port: port).get("/json")
        }
        #expect(throws: ClientError.self) { try TestClient(port: port) }
    }

    @Test func stopIsPromptWithStuckConnections() throws {
        let server = try LoopbackServer()
        let stuck = try TestClient(port: server.port)
        try stuck.request("GET", "/fault/no-response")
        let sleeping = try TestClient(port: server.port)
        try sleeping.request("GET", "/delay/600000")
        let idle = try TestClient(port: server.port) // connected, no request
        _ = idle
        let stalledDownload = try TestClient(port: server.port) // server blocked in send()
        try stalledDownload.request("GET", "/bytes/1073741824")
        _ = try stalledDownload.take(1000)
        let stalledUpload = try TestClient(port: server.port) // server blocked in recv() of the body
        try stalledUpload.send("POST /upload HTTP/1.1\r\nContent-Length: 1000000000\r\n\r\nonly a few bytes")
        #expect(eventually { server.stats.inFlight == 4 && server.stats.openConnections == 5 })
        let start = Date()
        server.stop()
        let elapsed = Date().timeIntervalSince(start)
        // The handlers would wait 10 minutes or forever: returning at all is returning promptly
        // (the bound only catches a hang, it is not a speed claim).
        #expect(elapsed < 60, "stop took \(elapsed) s")
        #expect(try stuck.readToEnd().isEmpty)
        #expect(try sleeping.readToEnd().isEmpty)
        let stats = server.stats
        #expect(stats.openConnections == 0)
        #expect(stats.clientAborts == 0, "stop() is not a client abort")
        #expect(stats.inFlight == 0)
    }

    @Test func maxInFlightWithConcurrentDelays() throws {
        try withServer { server in
            // Five requests on five connections, all sent before the first answer is due.
            let clients = try (0..<5).map { _ in try TestClient(port: server.port) }
            for client in clients { try client.request("GET", "/delay/3000") }
            #expect(eventually { server.stats.inFlight == 5 })
            for client in clients {
                let response = try client.readResponse()
                #expect(response.status == 200 && response.text == "delayed 3000")
            }
            let stats = server.stats
            #expect(stats.maxInFlight == 5)
            #expect(stats.inFlight == 0)
            #expect(stats.completedResponses == 5)
            #expect(stats.requestCount == 5)
            #expect(stats.connectionCount == 5)
            #expect(stats.clientAborts == 0)
            server.resetStats()
            #expect(server.stats.maxInFlight == 0 && server.stats.requestCount == 0)
            #expect(server.stats.openConnections == 5)
        }
    }

    @Test func clientAbortDuringDelayAndLongBody() throws {
        try withServer { server in
            do {
                let client = try TestClient(port: server.port)
                try client.request("GET", "/delay/600000")
                #expect(eventually { server.stats.inFlight == 1 })
            } // client closes here
            // Seen during the 10-minute delay, not after it.
            #expect(eventually { server.stats.clientAborts == 1 && server.stats.inFlight == 0 })

            do {
                let client = try TestClient(port: server.port)
                try client.request("GET", "/bytes/1073741824")
                _ = try client.take(100_000)
                client.reset()
            }
            #expect(eventually { server.stats.clientAborts == 2 && server.stats.inFlight == 0 })
            #expect(eventually { server.stats.openConnections == 0 })
            #expect(server.stats.completedResponses == 0)
        }
    }

    @Test func abandonedUploadIsRecordedAndCounted() throws {
        try withServer { server in
            do {
                let client = try TestClient(port: server.port)
                try client.send("POST /upload HTTP/1.1\r\nContent-Length: 1000\r\n\r\n0123456789")
                #expect(eventually { server.stats.inFlight == 1 })
            }
            #expect(eventually { server.stats.clientAborts == 1 && server.stats.inFlight == 0 })
            let recorded = try #require(server.requests.last)
            #expect(recorded.path == "/upload" && recorded.bodyLength == 10)
        }
    }

    @Test func manyConcurrentConnections() throws {
        try withServer { server in
            let failures = SanitizedMutex(0)
            let port = server.port
            runConcurrently(200) { index in
                do {
                    let client = try TestClient(port: port)
                    let response = try client.get("/bytes/\(1000 + index)?seed=\(index)")
                    let expected = Array(SeededBytes.data(seed: UInt64(index), offset: 0, count: 1000 + index))
                    if response.status != 200 || response.body != expected { failures.withLock { $0 += 1 } }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
            #expect(failures.withLock { $0 } == 0)
            #expect(server.stats.connectionCount == 200)
            #expect(server.requests.count == 200)
        }
    }
}
