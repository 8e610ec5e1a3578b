import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AsyncNetworking

@Suite("probe", .enabled(if: defaultTransportIsCurl, "curl"))
struct DuplexProbeTests {
    @Test func echoChunkByChunkThroughEvents() async throws {
        let server = try DuplexTestServer()
        defer { server.stop() }
        let manager = SessionManager()
        let (chunks, producer) = AsyncStream<Data>.makeStream()
        var request = URLRequest(url: server.url("/echo"))
        request.httpMethod = "POST"
        let sent = request
        try await withDeadline(20) {
            let handle = try await manager.uploadTask(with: sent, from: chunks)
            producer.yield(Data("chunk-0".utf8))
            var next = 1
            var received = Data()
            for try await event in handle.events {
                switch event {
                case .response(let r): print("head", r.statusCode)
                case .data(let d):
                    received.append(d)
                    print("got", String(decoding: d, as: UTF8.self))
                    if next < 5 { producer.yield(Data("chunk-\(next)".utf8)); next += 1 } else { producer.finish() }
                default: break
                }
            }
            print("done", String(decoding: received, as: UTF8.self))
        }
        await manager.invalidateAndCancel()
    }
}
