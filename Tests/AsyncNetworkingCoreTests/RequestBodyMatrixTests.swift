@testable import AsyncNetworkingTestSupport

/// The rule: every request body — `httpBody`, `httpBodyStream`, `Data`, a file, an `AsyncSequence`,
/// an `InputStream`, a multipart form — on every front door (the manager's data, task, stream,
/// fetch, download, batch, upload and duplex calls; ``HTTPClient``'s send, adapters and uploads)
/// and every transport (curl, URLSession, stubs) reaches the server whole, or the call fails
/// with a typed error and no request with a partial or empty body is ever answered. That holds
/// for the first attempt and for the attempts the Session layer makes itself: a 307 and a 308
/// (the body re-sent to the new URL) and a credential retry after a 401. A body that can be read
/// only once (`httpBodyStream`, `BodyStreamProducer.once`, a streamed sequence) fails a re-send
/// with ``NetworkingError/Kind/bodyStreamNotReplayable``.
///
/// Each case runs every route against one server: what it answered (the echo's length and
/// checksum) and every body the server recorded at the target are compared with the payload.
@Suite("Every request body is sent whole on every door and transport, or refused")
struct RequestBodyMatrixTests {
    static let payload = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })

    @Test("each body source and door, on each transport: direct, 307, 308 and a credential retry",
          arguments: MatrixTransport.allCases, BodyDoor.allCases)
    func bodyArrivesWholeOrIsRefused(transport: MatrixTransport, door: BodyDoor) async throws {
        try await BodyMatrixRig.with(transport) { rig in
            for route in BodyRoute.allCases {
                rig.reset()
                let outcome: Result<Data, NetworkingError>
                do throws(NetworkingError) {
                    outcome = .success(try await door.send(Self.payload, to: rig.url(route), rig: rig))
                } catch {
                    outcome = .failure(error)
                }
                let expected = door.expectation(route: route, transport: transport)
                let context = "\(door) \(route) on \(transport)"
                switch (expected, outcome) {
                case (.whole, .success(let reply)):
                    let echo = try BodyMatrixRig.echo(reply)
                    #expect(echo.length == door.expectedBytes(Self.payload).count, "\(context)")
                    #expect(echo.checksum == Checksum.fnv1a64(door.expectedBytes(Self.payload)), "\(context)")
                case (.refused(let kind), .failure(let error)):
                    #expect(error.kind == kind, "\(context): \(error)")
                default:
                    Issue.record("\(context): expected \(expected), got \(outcome)")
                }
                // Whatever the outcome, the target never received a partial or empty body.
                let wanted = door.expectedBytes(Self.payload)
                for body in rig.bodiesReceived(at: route) {
                    #expect(body.length == wanted.count && body.checksum == Checksum.fnv1a64(wanted),
                            "\(context): the server received \(body.length) bytes")
                }
            }
        }
    }

    /// A larger stream (many reads of the stream, many chunks on the wire) arrives whole.
    @Test("a 1 MiB httpBodyStream arrives whole through data(for:) and dataTask", arguments: MatrixTransport.allCases)
    func aLargeBodyStreamArrivesWhole(transport: MatrixTransport) async throws {
        let large = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 3) })
        try await BodyMatrixRig.with(transport) { rig in
            for door in [BodyDoor.dataBodyStream, .dataTaskBodyStream] {
                let reply = try await door.send(large, to: rig.url(.direct), rig: rig)
                let echo = try BodyMatrixRig.echo(reply)
                #expect(echo.length == large.count, "\(door) on \(transport)")
                #expect(echo.checksum == Checksum.fnv1a64(large), "\(door) on \(transport)")
            }
        }
    }

    /// The same stream in a second request — after the first read it, or while it reads it — is
    /// refused before anything is sent: what is left of it is not the whole body.
    @Test("a body stream already handed to a transfer is refused before anything is sent", arguments: MatrixTransport.allCases)
    func aUsedBodyStreamIsRefused(transport: MatrixTransport) async throws {
        try await BodyMatrixRig.with(transport) { rig in
            var request = URLRequest(url: rig.url(.direct))
            request.httpMethod = "POST"
            request.httpBodyStream = InputStream(data: Self.payload)
            let first = try await rig.manager.data(for: request)
            #expect(try BodyMatrixRig.echo(first.0).length == Self.payload.count)
            rig.reset()
            let again = await expectNetworkingError { try await rig.manager.data(for: request) }
            #expect(again?.kind == .bodyStreamNotReplayable)
            #expect(rig.bodiesReceived(at: .direct).isEmpty, "nothing was sent")
            // Two transfers at once with one stream: the second is refused at once.
            var shared = URLRequest(url: rig.url(.direct))
            shared.httpMethod = "POST"
            shared.httpBodyStream = InputStream(data: Self.payload)
            let handle = try await rig.manager.dataTask(with: shared)
            let second = await expectNetworkingError { try await rig.manager.dataTask(with: shared) }
            #expect(second?.kind == .bodyStreamNotReplayable)
            let reply = try await BodyMatrixRig.collect(handle)
            #expect(try BodyMatrixRig.echo(reply).length == Self.payload.count)
        }
    }
}

extension RequestBodyMatrixTests {
    /// A redirect hook may hand back a request with a body stream the transfer does not own: it is
    /// refused with a typed error on every transport (FoundationNetworking followed it with an
    /// empty body), never sent without its bytes.
    @Test("a hook's request with an httpBodyStream is refused, never sent without its bytes", arguments: MatrixTransport.allCases)
    func aHooksBodyStreamIsNeverDropped(transport: MatrixTransport) async throws {
        try await BodyMatrixRig.with(transport) { rig in
            let payload = Self.payload
            await rig.manager.setHooks(SessionHooks(redirect: { context in
                var request = context.proposedRequest
                request.httpMethod = "POST"
                request.httpBodyStream = InputStream(data: payload)
                return request
            }))
            let outcome: Result<Data, NetworkingError>
            do throws(NetworkingError) {
                outcome = .success(try await rig.manager.data(for: URLRequest(url: rig.server.url("/redirect-to?url=%2Fecho&status=302"))).0)
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let reply): Issue.record("\(transport): sent as \(String(decoding: reply, as: UTF8.self))")
            case .failure(let error): #expect(error.kind == .unsupportedOperation, "\(transport): \(error)")
            }
            for body in rig.bodiesReceived(at: .direct) {
                #expect(body.length == payload.count, "\(transport): the server received \(body.length) bytes")
            }
        }
    }
}

/// The transports a matrix case runs on (curl only on Linux with libcurl).
enum MatrixTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case curl, urlSession, stubs
    var testDescription: String { rawValue }
}

/// Where the body is sent: straight to the echo, through a 307 or 308 to it, or to an echo behind
/// HTTP Basic that answers 401 first (the manager holds the credential).
enum BodyRoute: String, CaseIterable, Sendable {
    case direct, redirect307, redirect308, credentialRetry
}

/// What a case must give.
enum BodyExpectation: CustomStringConvertible {
    case whole
    case refused(NetworkingError.Kind)
    var description: String {
        switch self {
        case .whole: "the whole body echoed"
        case .refused(let kind): "a \(kind) error"
        }
    }
}
