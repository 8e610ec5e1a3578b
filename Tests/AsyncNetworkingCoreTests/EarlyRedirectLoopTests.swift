#if os(Linux)
@testable import AsyncNetworkingTestSupport

/// The rule: a send failure after a complete final response head (and its body, when delimited)
/// was received is the end of the request body, not a failure. A server that answers `307` to a
/// 300 KB upload without reading it, and closes (the unread body resets the connection), must be
/// followed every time — the body re-sent to `/landed` and its `200 got N` the outcome — for
/// `Data`, file and sequence bodies, over `http` and `https`. Each case runs 20 uploads in a row
/// (the failure was 2 in 20 under load): outcome-only assertions, hang deadlines only.
@Suite("A 307 answered before the upload body is read is followed 20 times in 20 (curl)",
       .enabled(if: defaultTransportIsCurl, "curl's send path"))
struct EarlyRedirectLoopTests {
    enum Body: String, CaseIterable, Sendable { case data, file, sequence }
    enum Scheme: String, CaseIterable, Sendable { case http, https }
    /// What the server does after its `307`: closes the connection with the body unread (the
    /// kernel resets it), or holds it open and never reads again.
    enum Server: String, CaseIterable, Sendable { case closes, holdsOpen }

    static let iterations = 20
    static let payload = Data((0..<(300 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 5) })

    @Test("every upload is redirected and lands whole", arguments: Scheme.allCases, Server.allCases)
    func everyUploadLands(scheme: Scheme, server kind: Server) async throws {
        for body in Body.allCases {
            let outcomes: [String]
            let expected: String
            switch (scheme, kind) {
            case (.http, .closes):
                let server = try EarlyAnswerServer()
                defer { server.stop() }
                expected = "200 got \(Self.payload.count)"
                outcomes = try await Self.run(body, to: server.url("/answer/307"), manager: SessionManager(transport: .curl))
            case (.http, .holdsOpen):
                let server = try EarlyRedirectServer()
                defer { server.stop() }
                expected = "200 \(Self.payload.count)"
                outcomes = try await Self.run(body, to: server.url("/first"), manager: SessionManager(transport: .curl))
            case (.https, _):
                guard TestPKI.isAvailable else { return }
                let pki = try await TestPKI.make()
                let server = try await offThePool { try EarlyAnswerTLSServer(pki: pki) }
                defer { server.stop() }
                let manager = SessionManager(transport: .curl, securityPolicy: .customRoots([try pki.certificate("ca.pem")]))
                expected = "200 got \(Self.payload.count)"
                outcomes = try await Self.run(body, to: server.url(kind == .closes ? "/answer/307" : "/hold/307"), manager: manager)
            }
            let wrong = outcomes.enumerated().filter { $0.element != expected }
            #expect(outcomes.count == Self.iterations)
            #expect(wrong.isEmpty, "\(scheme) \(kind) \(body): \(wrong.count) of \(Self.iterations) wrong: \(wrong.prefix(3))")
        }
    }

    /// Uploads one after another; each outcome is `STATUS TEXT` or `error KIND: MESSAGE`.
    private static func run(_ body: Body, to url: URL, manager: SessionManager) async throws -> [String] {
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        let request = post
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("early-redirect-\(UUID().uuidString).bin")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let outcomes = try await withDeadline(6 * hangDeadline) {
            var outcomes: [String] = []
            for _ in 0..<iterations {
                do throws(NetworkingError) {
                    let (data, response) = switch body {
                    case .data: try await manager.upload(for: request, from: payload)
                    case .file: try await manager.upload(for: request, fromFile: file)
                    case .sequence: try await manager.upload(for: request, fromSequence: { BodyDoor.chunks(payload) })
                    }
                    outcomes.append("\(response.statusCode) \(String(decoding: data, as: UTF8.self))")
                } catch {
                    outcomes.append("error \(error.kind): \(error.message)")
                }
            }
            return outcomes
        }
        await manager.invalidateAndCancel()
        return outcomes
    }
}
#endif
