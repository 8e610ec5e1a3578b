import Foundation
import Testing
@testable import AsyncNetworking

/// A WebSocket goes through the manager's proxy like an HTTP request: a `CONNECT` tunnel carrying
/// the proxy credential, which never reaches the origin.
@Suite("WebSocket through a proxy", .enabled(if: defaultTransportIsCurl, "WebSockets need the curl transport"))
struct WebSocketProxyTests {
    @Test func aWebSocketTunnelsThroughTheManagersProxyWithItsCredential() async throws {
        let proxy = try await ProxyTestServer.started(requiring: ProxyTests.credential)
        defer { proxy.stop() }
        try await withWebSocketServer { server, manager in
            try await manager.setProxy(.through(ProxyTests.http(proxy.port)))
            let socket = try await manager.webSocket(to: server.url("/echo"))
            try await socket.send(.text("through the tunnel"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("through the tunnel"))
            try await socket.close(code: .normalClosure, reason: "done")
            let connect = try #require(proxy.log.first { $0.hasPrefix("CONNECT 127.0.0.1:\(server.port) ") })
            #expect(connect.contains(ProxyTests.expectedAuth), "the proxy got the credential: \(connect)")
        }
    }

    @Test func aProxyThatRefusesTheTunnelIsAProxyFailure() async throws {
        let proxy = try await ProxyTestServer.started(requiring: ProxyTests.credential)
        defer { proxy.stop() }
        try await withWebSocketServer { server, manager in
            try await manager.setProxy(.through(ProxyTests.http(proxy.port, credential: nil)))
            let error = await expectNetworkingError { _ = try await manager.webSocket(to: server.url("/echo")) }
            #expect(error != nil)
            #expect(proxy.log.contains { $0.hasPrefix("CONNECT") }, "the attempt went to the proxy, not around it")
        }
    }
}
