@testable import AsyncNetworkingTestSupport

/// The rule: a complete response head received while the request body is still
/// being sent is the response (as curl's own command-line tool treats it). A server that answers a
/// large upload at once — 307/308 (followed, the body sent again on a new connection), 413, 401,
/// even 200 — and closes without reading the body must not turn into `.networkConnectionLost`
/// because the rest of the body could not be written.
@Suite struct EarlyResponseUploadTests {
    /// The failure was intermittent (1–2 in 20): each variant runs this many times.
    static let iterations = 20

    enum Body: String, CaseIterable, Sendable { case data300KB, data4MB, file1MB }

    private static func payload(_ body: Body) -> Data {
        let count = switch body {
        case .data300KB: 300 << 10
        case .data4MB: 4 << 20
        case .file1MB: 1 << 20
        }
        return Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    }

    /// What each status must give: the status and text the caller sees.
    private static func expected(_ status: Int, bodyCount: Int) -> (Int, String) {
        switch status {
        case 307, 308: (200, "got \(bodyCount)")
        case 401: (401, "denied")
        case 413: (413, "too large")
        default: (status, "early")
        }
    }

    @Test(arguments: [307, 308, 413, 401, 200], Body.allCases)
    func anAnswerBeforeTheBodyIsTheResponseOnCurl(status: Int, body: Body) async throws {
        let outcomes = try await run(status: status, body: body, transport: .curl, keepAlive: false)
        let wanted = Self.expected(status, bodyCount: Self.payload(body).count)
        let wrong = outcomes.enumerated().filter { $0.element != "\(wanted.0) \(wanted.1)" }
        #expect(wrong.isEmpty, "\(status) \(body): \(wrong.count) of \(Self.iterations) wrong: \(wrong.prefix(3))")
    }

    /// Without `Connection: close` curl itself stops sending for a status >= 300; a 200 it keeps
    /// sending, and the write fails the same way.
    @Test(arguments: [307, 413, 200])
    func anAnswerWithoutConnectionCloseOnCurl(status: Int) async throws {
        let outcomes = try await run(status: status, body: .data4MB, transport: .curl, keepAlive: true)
        let wanted = Self.expected(status, bodyCount: 4 << 20)
        let wrong = outcomes.filter { $0 != "\(wanted.0) \(wanted.1)" }
        #expect(wrong.isEmpty, "\(status): \(wrong.count) of \(Self.iterations) wrong: \(wrong.prefix(3))")
    }

    /// FoundationNetworking decides this itself (and drops a 307's body, LINUX-URLSESSION.md §12):
    /// the process survives and every outcome is the expected response or a typed error.
    @Test(arguments: [307, 413, 401, 200])
    func anAnswerBeforeTheBodyIsTypedOnURLSession(status: Int) async throws {
        let outcomes = try await run(status: status, body: .data300KB, transport: .urlSession, keepAlive: false)
        #expect(outcomes.count == Self.iterations)
        #expect(outcomes.allSatisfy { !$0.hasPrefix("untyped") }, "\(outcomes)")
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? NetworkingError else { return "untyped \(error)" }
        return "error \(error.kind): \(error.message)"
    }

    /// Runs the uploads one after another; each outcome is `STATUS TEXT` or `error KIND`.
    private func run(status: Int, body: Body, transport: SessionManager.Transport, keepAlive: Bool) async throws -> [String] {
        let server = try EarlyAnswerServer()
        defer { server.stop() }
        let payload = Self.payload(body)
        var file: URL?
        if body == .file1MB {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("early-answer-\(UUID().uuidString).bin")
            try payload.write(to: url)
            file = url
        }
        defer { if let file { try? FileManager.default.removeItem(at: file) } }
        let manager = SessionManager(transport: transport)
        var request = URLRequest(url: server.url("/answer/\(status)\(keepAlive ? "/keep" : "")"))
        request.httpMethod = "POST"
        let post = request
        let upload = file
        let outcomes = try await withDeadline {
            var outcomes: [String] = []
            for _ in 0..<Self.iterations {
                do {
                    let (data, response) = if let upload {
                        try await manager.upload(for: post, fromFile: upload)
                    } else {
                        try await manager.upload(for: post, from: payload)
                    }
                    outcomes.append("\(response.statusCode) \(String(decoding: data, as: UTF8.self))")
                } catch {
                    outcomes.append(Self.describe(error))
                }
            }
            return outcomes
        }
        await manager.invalidateAndCancel()
        return outcomes
    }
}
