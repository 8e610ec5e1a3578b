import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackServer
import AsyncNetworking

/// Starts a loopback server and an ``HTTPClient`` whose base URL is the server, runs `body` within
/// a deadline, and always shuts both down (via ``withServerAndManager``).
func withClient<T: Sendable>(
    deadline: Double = 2 * hangDeadline,
    configure: @Sendable (URLSessionConfiguration) -> Void = { _ in },
    _ body: @escaping @Sendable (LoopbackServer, HTTPClient) async throws -> T
) async throws -> T {
    try await withServerAndManager(deadline: deadline, configure: configure) { server, manager in
        try await body(server, HTTPClient(manager: manager, baseURL: server.baseURL))
    }
}

/// The loopback server's `/echo` reply.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: [String: String]
    let headers: [String: String]
    let body: String?
    let bodyLength: Int
}

/// The loopback server's `/json` document.
struct Document: Decodable, Sendable, Equatable {
    let ok: Bool
    let numbers: [Int]
    let name: String
}

/// The loopback server's `/basic-auth` reply.
struct AuthReply: Decodable, Sendable {
    let authenticated: Bool
    let user: String?
}

/// A synthetic response for serializer tests that need no server.
func makeResponse(_ status: Int = 200, contentType: String? = nil, url: String = "http://127.0.0.1/x") -> HTTPURLResponse {
    var headers: [String: String] = [:]
    if let contentType { headers["Content-Type"] = contentType }
    return HTTPURLResponse(url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
}

/// A synthetic request with `method`.
func makeRequest(_ method: HTTPMethod = .get, url: String = "http://127.0.0.1/x") -> URLRequest {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method.rawValue
    return request
}

/// Decodes a `Data` body as UTF-8.
func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }
