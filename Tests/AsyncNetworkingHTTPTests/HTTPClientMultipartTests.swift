@testable import AsyncNetworkingTestSupport

/// Multipart forms through the client: parameters as fields, data, file, stream and custom-header parts.
@Suite("HTTPClient: multipart on the client")
struct HTTPClientMultipartTests {
    struct Part: Decodable, Sendable, Equatable {
        let name: String
        let filename: String?
        let contentType: String?
        let size: Int
        let checksum: String
        let value: String?
    }

    struct Parts: Decodable, Sendable {
        let parts: [Part]
    }

    struct RawPart: Decodable, Sendable {
        let headers: [String]
        let value: String?
    }

    struct RawParts: Decodable, Sendable {
        let parts: [RawPart]
    }

    static let encodings: [MultipartEncoding] = [.default, .temporaryFile, .chunked]

    @Test(arguments: encodings)
    func parametersBecomeFieldsThenTheBuilderAddsEveryKindOfPart(encoding: MultipartEncoding) async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withClient { server, client in
                var client = client
                client.defaultHeaders["X-Default"] = "d"
                let file = directory.appendingPathComponent("notes.txt")
                try Data("file bytes".utf8).write(to: file)
                let streamed = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
                let raw = Data([0xFF, 0x00, 0x41])
                let parameters = Parameters.untyped([
                    "title": "a b", "count": 3, "ratio": 0.5, "public": true, "meta": ["k": "v", "n": String?.none] as [String: any Sendable],
                    "tags": ["x", "y"], "blob": raw,
                ])
                let reply = try await client.post(
                    "multipart", parameters: parameters, headers: ["X-Call": "c"], encoding: encoding, as: Parts.self
                ) { form in
                    form.append(Data("{}".utf8), name: "json", filename: "m.json")
                    try form.append(fileAt: file, name: "file")
                    try form.append(stream: { InputStream(data: streamed) }, length: Int64(streamed.count), name: "big", filename: "big.bin")
                    form.append(Data("custom".utf8), headers: [
                        "Content-Disposition": #"form-data; name="custom"; filename="c.txt""#, "Content-Type": "text/x-custom",
                    ])
                }
                let fields = reply.parts.filter { $0.filename == nil }
                #expect(fields.map(\.name) == ["blob", "count", "meta[k]", "meta[n]", "public", "ratio", "tags[]", "tags[]", "title"])
                #expect(fields.map(\.value) == [nil, "3", "v", "", "1", "0.5", "x", "y", "a b"])
                #expect(fields.first?.checksum == String(Checksum.fnv1a64(raw)), "Data is sent as its bytes")
                let files = reply.parts.filter { $0.filename != nil }
                #expect(files.map(\.name) == ["json", "file", "big", "custom"])
                #expect(files.map(\.contentType) == ["application/json", "text/plain", "application/octet-stream", "text/x-custom"])
                #expect(files[2].size == streamed.count && files[2].checksum == String(Checksum.fnv1a64(streamed)))
                let request = try #require(server.requests.last)
                #expect(request.path == "/multipart" && request.method == "POST")
                #expect(request.header("X-Default") == "d" && request.header("X-Call") == "c")
                #expect(request.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
            }
        }
    }

    @Test func aCustomHeaderPartIsSentWithExactlyItsHeaders() async throws {
        try await withClient { _, client in
            let reply = try await client.post("multipart-headers", as: RawParts.self) { form in
                form.append("plain", name: "field")
                form.append(Data("<b/>".utf8), headers: [
                    "Content-Disposition": #"form-data; name="doc"; creation-date="x""#,
                    "Content-ID": "<part1@example>", "X-Bad": "a\r\nInjected: yes",
                ])
            }
            #expect(reply.parts.count == 2)
            #expect(reply.parts[0].headers == [#"Content-Disposition: form-data; name="field""#])
            #expect(reply.parts[1].headers == [
                #"Content-Disposition: form-data; name="doc"; creation-date="x""#, "Content-ID: <part1@example>", "X-Bad: aInjected: yes",
            ])
            #expect(reply.parts[1].value == "<b/>")
        }
    }

    @Test func untypedMultipartAndUploadUseTheClientWideSerializer() async throws {
        try await withClient { _, client in
            let form = try await client.post("multipart", parameters: ["k": "v"]) { form in form.append("w", name: "x") }
            let names = (form as? JSONValue)?["parts"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(names == ["k", "x"])
            var client = client
            client.responseSerializer = StringResponseSerializer()
            let echoed = try await client.upload(.data(Data("hello".utf8)), to: "echo", method: .put)
            #expect((echoed as? String)?.contains(#""body":"hello""#) == true)
        }
    }

    @Test func aMultipartTaskReportsUploadProgressAndItsValue() async throws {
        try await withClient { _, client in
            let payload = Data(repeating: 0x5A, count: 300_000)
            let task = try await client.multipartTask(.put, "multipart", as: Parts.self) { form in
                form.append(payload, name: "payload", filename: "p.bin")
            }
            let progress = Task {
                var last: TransferProgress?
                for await event in task.events { if case .uploadProgress(let value) = event { last = value } }
                return last
            }
            let parts = try await task.value.parts
            #expect(parts.map(\.size) == [payload.count])
            let final = try #require(await progress.value)
            #expect(final.completedBytes == final.expectedBytes && final.completedBytes > Int64(payload.count))
            #expect(task.transfer.originalRequest.httpMethod == "PUT")
        }
    }

    @Test func aBadPartOrAServerErrorFailsTypedAndAShortStreamSendsNothing() async throws {
        try await withClient { server, client in
            let negative = await #expect(throws: NetworkingError.self) {
                try await client.post("multipart", as: Parts.self) { form in
                    try form.append(stream: { InputStream(data: Data()) }, length: -1, name: "s")
                }
            }
            #expect(negative?.kind == .requestSerializationFailed)
            let missing = await #expect(throws: NetworkingError.self) {
                try await client.post("multipart", as: Parts.self) { form in
                    try form.append(fileAt: URL(fileURLWithPath: "/nonexistent/\(UUID())"), name: "f")
                }
            }
            #expect(missing?.kind == .fileReadFailed)
            let short = await #expect(throws: NetworkingError.self) {
                try await client.post("multipart", as: Parts.self) { form in
                    try form.append(stream: { InputStream(data: Data("abc".utf8)) }, length: 10, name: "s")
                }
            }
            #expect(short?.kind == .requestSerializationFailed)
            #expect(server.requests.isEmpty, "nothing was sent")
            let failing = await #expect(throws: NetworkingError.self) {
                try await client.post("status/500", as: Parts.self) { form in form.append("x", name: "x") }
            }
            #expect(failing?.kind == .unacceptableStatusCode(500))
        }
    }
}
