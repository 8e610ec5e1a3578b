@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// Request coalescing (``TransferOptions/coalescesIdenticalRequests``) against LoopbackServer's
/// `/gated-bytes`, whose body waits for a gate the test opens once every caller has joined — so
/// "joined while in flight" is an observed state, never a timing guess.
@Suite("Request coalescing")
struct CoalescingTests {
    static let size = 10_000
    static var coalescing: TransferOptions {
        var options = TransferOptions()
        options.coalescesIdenticalRequests = true
        return options
    }

    static func gatedRequest(_ server: LoopbackServer, gate: String, header: String? = nil) -> URLRequest {
        var request = URLRequest(url: server.url("/gated-bytes?bytes=\(size)&gate=\(gate)"))
        if let header { request.setValue(header, forHTTPHeaderField: "X-Variant") }
        return request
    }

    static func gatedCount(_ server: LoopbackServer) -> Int { server.requests.filter { $0.path == "/gated-bytes" }.count }

    @Test("what counts as identical: GET without body, same fields in any order and case")
    func keys() throws {
        let url = try #require(URL(string: "http://127.0.0.1:1/x?q=1"))
        var first = URLRequest(url: url)
        first.setValue("1", forHTTPHeaderField: "X-A")
        first.setValue("2", forHTTPHeaderField: "X-B")
        var second = URLRequest(url: url)
        second.setValue("2", forHTTPHeaderField: "x-b")
        second.setValue("1", forHTTPHeaderField: "x-a")
        let options = Self.coalescing
        #expect(CoalescingKey(first, options: options, door: "data") == CoalescingKey(second, options: options, door: "data"))
        second.setValue("3", forHTTPHeaderField: "X-B")
        #expect(CoalescingKey(first, options: options, door: "data") != CoalescingKey(second, options: options, door: "data"))
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        #expect(CoalescingKey(post, options: options, door: "data") == nil)
        var withBody = URLRequest(url: url)
        withBody.httpBody = Data("x".utf8)
        #expect(CoalescingKey(withBody, options: options, door: "data") == nil)
        var limited = options
        limited.maxResponseBytes = 10
        #expect(CoalescingKey(first, options: options, door: "data") != CoalescingKey(first, options: limited, door: "data"))
        #expect(CoalescingKey(first, options: options, door: "data") != CoalescingKey(first, options: options, door: "client"))
    }

    @Test("N identical concurrent GETs share one transfer; each caller gets the whole body")
    func identicalShareOne() async throws {
        try await withServerAndManager { server, manager in
            let gate = UUID().uuidString
            let callers = 8
            let tasks = (0..<callers).map { _ in
                Task { try await manager.data(for: Self.gatedRequest(server, gate: gate), options: Self.coalescing) }
            }
            // Every caller joined, and the one transfer reached the server (held at the gate).
            #expect(await eventually { manager.coalescing.data.waiting == callers && Self.gatedCount(server) == 1 })
            #expect(await manager.activeTransferCount == 1, "one live transfer for \(callers) callers")
            server.openGate(gate)
            var bodies: [Data] = []
            for task in tasks {
                let (body, response) = try await task.value
                #expect(response.statusCode == 200)
                bodies.append(body)
            }
            #expect(bodies.allSatisfy { $0.count == Self.size && $0 == bodies[0] })
            #expect(Self.gatedCount(server) == 1, "the server saw one request for \(callers) callers")
            let counts = manager.coalescing.counts
            #expect(counts.operations == 1 && counts.callers == callers, "transfers:callers = \(counts.operations):\(counts.callers)")
        }
    }

    @Test("HTTPClient: opted in per client, identical GETs share one transfer")
    func clientShareOne() async throws {
        try await withServerAndManager { server, manager in
            var client = HTTPClient(manager: manager, baseURL: server.baseURL)
            client.transferOptions.coalescesIdenticalRequests = true
            let gate = UUID().uuidString
            let callers = 5
            let tasks = (0..<callers).map { _ in
                Task { [client] in try await client.get("/gated-bytes?bytes=\(Self.size)&gate=\(gate)", serializer: DataResponseSerializer()) }
            }
            #expect(await eventually { manager.coalescing.exchange.waiting == callers && Self.gatedCount(server) == 1 })
            server.openGate(gate)
            for task in tasks {
                let body = try await task.value
                #expect(body.count == Self.size)
            }
            #expect(Self.gatedCount(server) == 1)
            #expect(manager.coalescing.exchange.counts.operations == 1)
        }
    }

    @Test("different header fields, or not opted in: separate transfers")
    func differentHeadersSeparate() async throws {
        try await withServerAndManager { server, manager in
            let gate = UUID().uuidString
            let requests = [
                (Self.gatedRequest(server, gate: gate, header: "a"), Self.coalescing),
                (Self.gatedRequest(server, gate: gate, header: "a"), Self.coalescing),
                (Self.gatedRequest(server, gate: gate, header: "b"), Self.coalescing),
                (Self.gatedRequest(server, gate: gate, header: "b"), Self.coalescing),
                (Self.gatedRequest(server, gate: gate, header: "a"), TransferOptions()),
            ]
            let tasks = requests.map { request, options in Task { try await manager.data(for: request, options: options) } }
            #expect(await eventually { Self.gatedCount(server) == 3 && manager.coalescing.data.waiting == 4 })
            server.openGate(gate)
            for task in tasks {
                let (body, _) = try await task.value
                #expect(body.count == Self.size)
            }
            #expect(Self.gatedCount(server) == 3, "a, b and the one not opted in")
            #expect(server.requests.filter { $0.path == "/gated-bytes" }.compactMap { $0.header("X-Variant") }.sorted() == ["a", "a", "b"])
        }
    }

    @Test("one caller cancelled: it alone stops waiting, the others get the body")
    func oneCancelled() async throws {
        try await withServerAndManager { server, manager in
            let gate = UUID().uuidString
            let tasks = (0..<3).map { _ in
                Task { try await manager.data(for: Self.gatedRequest(server, gate: gate), options: Self.coalescing) }
            }
            #expect(await eventually { manager.coalescing.data.waiting == 3 && Self.gatedCount(server) == 1 })
            tasks[0].cancel()
            await #expect(throws: NetworkingError.self) { try await tasks[0].value }
            if case .failure(let error as NetworkingError) = await tasks[0].result { #expect(error.kind == .cancelled) }
            #expect(manager.coalescing.data.waiting == 2 && manager.coalescing.data.inFlight == 1)
            server.openGate(gate)
            for task in tasks.dropFirst() {
                let (body, _) = try await task.value
                #expect(body.count == Self.size)
            }
            #expect(Self.gatedCount(server) == 1)
        }
    }

    @Test("every caller cancelled: the transfer is cancelled, the server sees the connection drop")
    func allCancelled() async throws {
        try await withServerAndManager { server, manager in
            // `/delay` watches its socket while it waits: a client that leaves is counted at once.
            let path = "/delay/\(neverEnding)"
            let tasks = (0..<3).map { _ in
                Task { try await manager.data(for: URLRequest(url: server.url(path)), options: Self.coalescing) }
            }
            #expect(await eventually {
                manager.coalescing.data.waiting == 3 && server.requests.filter { $0.path == path }.count == 1
            })
            for task in tasks { task.cancel() }
            for task in tasks {
                if case .failure(let error as NetworkingError) = await task.result {
                    #expect(error.kind == .cancelled)
                } else {
                    Issue.record("a cancelled caller must throw .cancelled")
                }
            }
            #expect(await eventually { await manager.activeTransferCount == 0 }, "no live transfer left")
            #expect(await eventually { server.stats.clientAborts == 1 }, "the server saw the client drop the connection")
            #expect(manager.coalescing.data.inFlight == 0)
            // The key is free again: a new caller starts a new transfer.
            let fresh = UUID().uuidString
            server.openGate(fresh)
            _ = try await manager.data(for: Self.gatedRequest(server, gate: fresh), options: Self.coalescing)
            #expect(manager.coalescing.data.counts.operations == 2)
        }
    }
}
