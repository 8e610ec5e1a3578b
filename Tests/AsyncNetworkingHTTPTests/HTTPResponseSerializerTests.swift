@testable import AsyncNetworkingTestSupport

@Suite("HTTP response serializers")
struct HTTPResponseSerializerTests {
    // MARK: Data

    @Test func dataSucceedsAndRejectsAnErrorStatusWithItsBody() async throws {
        try await withClient { _, client async throws in
            #expect(try await client.get("bytes/100", serializer: DataResponseSerializer()).count == 100)
            let error = await expectNetworkingError { try await client.get("status/404", serializer: DataResponseSerializer()) }
            #expect(error?.kind == .unacceptableStatusCode(404))
            #expect(error?.statusCode == 404)
            #expect(error?.bodyText == "status 404")
            #expect(error?.request?.url?.path == "/status/404")
            let accepting = DataResponseSerializer().acceptingStatusCodes(200..<500)
            #expect(text(try await client.get("status/404", serializer: accepting)) == "status 404")
        }
    }

    // MARK: String

    @Test(arguments: ["utf-8", "iso-8859-1", "utf-16", "utf-16le", "utf-16be", "latin1"])
    func stringHonoursTheCharset(charset: String) async throws {
        try await withClient { _, client in
            let value = try await client.get("text", parameters: ["charset": .string(charset)], serializer: StringResponseSerializer())
            #expect(value == "héllo wörld")
        }
    }

    @Test func stringFailsOnBytesInvalidForTheEncoding() async throws {
        try await withClient { _, client in
            let forced = StringResponseSerializer(encoding: .utf8)
            let error = await expectNetworkingError {
                try await client.get("text", parameters: ["charset": "iso-8859-1"], serializer: forced)
            }
            #expect(error?.kind == .responseSerializationFailed)
            #expect(error?.body?.count == 11, "the undecodable body is kept")
            let mismatch = await expectNetworkingError {
                try await client.get("status/500", serializer: StringResponseSerializer())
            }
            #expect(mismatch?.kind == .unacceptableStatusCode(500))
        }
    }

    @Test func stringFallsBackToTheDefaultEncodingWithoutACharset() throws {
        let latin1 = Data([0x68, 0xE9])
        let response = makeResponse(contentType: "text/plain")
        #expect(try StringResponseSerializer(defaultEncoding: .isoLatin1).serialize(latin1, response: response, request: nil) == "hé")
        #expect(try StringResponseSerializer().serialize(Data("hé".utf8), response: response, request: nil) == "hé")
        #expect(StringResponseSerializer.encoding(forCharset: "UTF-16LE") == .utf16LittleEndian)
        #expect(StringResponseSerializer.encoding(forCharset: "klingon") == nil)
        let quoted = makeResponse(contentType: "text/plain; format=flowed; charset=\"ISO-8859-1\"")
        #expect(try StringResponseSerializer().serialize(latin1, response: quoted, request: nil) == "hé")
    }

    // MARK: JSON

    @Test func jsonParsesIntoASendableTree() async throws {
        try await withClient { _, client in
            let json = try await client.get("json", serializer: JSONResponseSerializer())
            #expect(json["ok"] == true)
            #expect(json["numbers"]?[2]?.intValue == 3)
            #expect(json["name"]?.stringValue == "loopback")
            #expect(json == ["ok": true, "numbers": [1, 2, 3], "name": "loopback"])
        }
    }

    @Test func jsonLabelledTextHTMLNeedsTheTypeAdded() async throws {
        try await withClient { _, client in
            let refused = await expectNetworkingError {
                try await client.get("json", parameters: ["type": "text/html"], serializer: JSONResponseSerializer())
            }
            #expect(refused?.kind == .unacceptableContentType("text/html"))
            #expect(refused?.bodyText?.contains("loopback") == true, "the body is kept for inspection")

            let lenient = JSONResponseSerializer().acceptingContentTypes("text/html")
            #expect(lenient.acceptableContentTypes == ["application/json", "text/json", "text/javascript", "text/html"])
            let json = try await client.get("json", parameters: ["type": "text/html"], serializer: lenient)
            #expect(json["name"] == "loopback")

            var decodable = DecodableResponseSerializer(Document.self)
            decodable.acceptableContentTypes?.insert("text/html")
            #expect(try await client.get("json", parameters: ["type": "text/html; charset=utf-8"], serializer: decodable).ok)

            let wildcard = DecodableResponseSerializer(Document.self).acceptingContentTypes("text/*")
            #expect(try await client.get("json", parameters: ["type": "text/html"], serializer: wildcard).ok)
        }
    }

    @Test func jsonFailsOnABodyThatIsNotJSON() async throws {
        try await withClient { _, client in
            let serializer = JSONResponseSerializer().acceptingContentTypes("text/plain")
            let error = await expectNetworkingError { try await client.get("text", serializer: serializer) }
            #expect(error?.kind == .responseSerializationFailed)
            #expect(error?.underlyingError is DecodingError)
            #expect(error?.response?.statusCode == 200)
            #expect(error?.body?.isEmpty == false)
        }
    }

    // MARK: Decodable

    @Test func decodableUsesTheGivenDecoder() async throws {
        struct Renamed: Decodable, Sendable { let ok: Bool; let title: String }
        try await withClient { _, client in
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .custom { path in
                let key = path.last!.stringValue
                return AnyKey(key == "name" ? "title" : key)
            }
            let value = try await client.get("json", as: Renamed.self, decoder: decoder)
            #expect(value.title == "loopback" && value.ok)
            let inferred: Document = try await client.get("json")
            #expect(inferred.numbers == [1, 2, 3])
        }
    }

    @Test func decodableFailureCarriesTheDecodingErrorResponseAndBody() async throws {
        struct Wrong: Decodable, Sendable { let ok: String }
        try await withClient { _, client in
            let error = await expectNetworkingError { try await client.get("json", as: Wrong.self) }
            #expect(error?.kind == .responseSerializationFailed)
            #expect(error?.underlyingError is DecodingError)
            #expect(error?.response?.statusCode == 200)
            #expect(error?.bodyText?.contains("loopback") == true)
            let status = await expectNetworkingError { try await client.get("status/503", as: Document.self) }
            #expect(status?.kind == .unacceptableStatusCode(503), "the status is checked before the content type")
            let type = await expectNetworkingError { try await client.get("text", as: Document.self) }
            #expect(type?.kind == .unacceptableContentType("text/plain"))
        }
    }

    // MARK: Empty bodies

    @Test func emptyBodiesOf204AreValidEmptyResults() async throws {
        try await withClient { _, client async throws in
            #expect(try await client.delete("status/204", as: Empty.self) == Empty())
            #expect(try await client.get("status/204", as: Document?.self) == nil)
            #expect(try await client.get("status/204", serializer: JSONResponseSerializer()) == .null)
            #expect(try await client.get("status/204", serializer: DataResponseSerializer()).isEmpty)
            #expect(try await client.get("status/204", serializer: StringResponseSerializer()) == "")
            #expect(try await client.get("status/204", serializer: PropertyListResponseSerializer(Document?.self)) == nil)
            let required = await expectNetworkingError { try await client.get("status/204", as: Document.self) }
            #expect(required?.kind == .responseSerializationFailed, "a required value cannot come from no body")
        }
    }

    @Test func emptyBodyOn200IsAnErrorUnlessTheTypeIsEmpty() async throws {
        try await withClient { _, client async throws in
            let error = await expectNetworkingError { try await client.get("bytes/0", serializer: JSONResponseSerializer()) }
            #expect(error?.kind == .responseSerializationFailed)
            #expect(error?.response?.statusCode == 200)
            #expect(try await client.post("bytes/0", as: Empty.self) == Empty(), "Empty accepts an empty body on any status")
            #expect(try await client.head("json", serializer: DecodableResponseSerializer(Document?.self)) == nil)
        }
    }

    @Test func emptyStatusesAndMethodsAreConfigurable() throws {
        let empty = Data()
        let reset = makeResponse(205)
        #expect(try JSONResponseSerializer().serialize(empty, response: reset, request: makeRequest()) == .null)
        var strict = JSONResponseSerializer()
        strict.validation.emptyResponseStatusCodes = []
        strict.validation.emptyRequestMethods = []
        #expect(throws: NetworkingError.self) { try strict.serialize(empty, response: reset, request: makeRequest(.head)) }
        var lenient = DecodableResponseSerializer(Document?.self)
        lenient.validation.emptyResponseStatusCodes.insert(201)
        #expect(try lenient.serialize(empty, response: makeResponse(201), request: makeRequest(.post)) == nil)
    }

    // MARK: Property list

    @Test func propertyListDecodes() throws {
        struct Settings: Codable, Sendable, Equatable { let name: String; let count: Int }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let body = try encoder.encode(Settings(name: "x", count: 2))
        let serializer = PropertyListResponseSerializer(Settings.self)
        let value = try serializer.serialize(body, response: makeResponse(contentType: "application/x-plist"), request: makeRequest())
        #expect(value == Settings(name: "x", count: 2))
        #expect(throws: NetworkingError.self) {
            try serializer.serialize(body, response: makeResponse(contentType: "application/json"), request: makeRequest())
        }
    }

    @Test func propertyListFailuresAgainstTheServer() async throws {
        struct Settings: Decodable, Sendable { let name: String }
        try await withClient { _, client in
            let serializer = PropertyListResponseSerializer(Settings.self)
            let type = await expectNetworkingError { try await client.get("json", serializer: serializer) }
            #expect(type?.kind == .unacceptableContentType("application/json"))
            let garbage = await expectNetworkingError {
                try await client.get("response-headers", parameters: ["Content-Type": "application/x-plist"], serializer: serializer)
            }
            #expect(garbage?.kind == .responseSerializationFailed)
            #expect(garbage?.bodyText == "ok")
            let status = await expectNetworkingError { try await client.get("status/418", serializer: serializer) }
            #expect(status?.kind == .unacceptableStatusCode(418))
        }
    }
}

/// A coding key made from a string, for custom key strategies.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
