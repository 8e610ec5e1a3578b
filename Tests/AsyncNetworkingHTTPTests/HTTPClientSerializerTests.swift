#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import AsyncNetworkingTestSupport

/// Client-wide serializer and validation, and the XML and null-stripping JSON serializers.
@Suite("HTTPClient: response serializers and validation")
struct HTTPClientSerializerTests {
    static func reply(_ type: String, _ body: String, status: Int = 200) -> String {
        var components = URLComponents()
        components.path = "reply"
        components.queryItems = [.init(name: "type", value: type), .init(name: "body", value: body), .init(name: "status", value: "\(status)")]
        return components.string!
    }

    @Test func oneLineAcceptsTextHTMLJSONForEveryCallWithoutItsOwnSerializer() async throws {
        try await withClient { _, client in
            let mislabelled = "json?type=text/html"
            let refused = await #expect(throws: NetworkingError.self) { let _: Document = try await client.get(mislabelled) }
            #expect(refused?.kind == .unacceptableContentType("text/html"))

            var lenient = client
            lenient.validation.additionalContentTypes.insert("text/html")
            let document: Document = try await lenient.get(mislabelled)
            #expect(document.name == "loopback")
            #expect(try await lenient.get(mislabelled) as? JSONValue == ["ok": true, "numbers": [1, 2, 3], "name": "loopback"])
            #expect(try await lenient.task(.get, mislabelled, as: Document.self).value == document)
            #expect(try await client.acceptingContentTypes("TEXT/HTML").get(mislabelled, as: Document.self) == document)

            // A call's own serializer is the per-call override: the client's change does not apply.
            let own = await #expect(throws: NetworkingError.self) {
                try await lenient.get(mislabelled, serializer: JSONResponseSerializer())
            }
            #expect(own?.kind == .unacceptableContentType("text/html"))
        }
    }

    @Test func clientWideStatusCodesAndSerializerShapeTheUntypedVerbs() async throws {
        try await withClient { server, client in
            var client = client
            client.responseSerializer = StringResponseSerializer()
            let notFound = await #expect(throws: NetworkingError.self) { try await client.get("status/404") }
            #expect(notFound?.kind == .unacceptableStatusCode(404))
            #expect(notFound?.body.map { String(decoding: $0, as: UTF8.self) } == "status 404")

            client.validation.acceptableStatusCodes = IndexSet(200..<300).union(IndexSet(integer: 404))
            #expect(try await client.get("status/404") as? String == "status 404")
            #expect(try await client.post("status/404") as? String == "status 404")
            #expect(try await client.put("status/404") as? String == "status 404")
            #expect(try await client.patch("status/404") as? String == "status 404")
            #expect(try await client.delete("status/404") as? String == "status 404")
            #expect(server.requests.suffix(5).map(\.method) == ["GET", "POST", "PUT", "PATCH", "DELETE"])
            let head = try await client.head("status/404")
            #expect(head.statusCode == 404)
        }
    }

    @Test func clientValidationChangesOnlyWhatItSays() {
        let json = ResponseValidation(acceptableContentTypes: ResponseValidation.jsonContentTypes)
        #expect(ClientValidation().applied(to: json) == json)
        #expect(ClientValidation().isIdentity)
        let extra = ClientValidation(additionalContentTypes: ["Text/HTML"]).applied(to: json)
        #expect(extra.acceptableContentTypes == ResponseValidation.jsonContentTypes.union(["text/html"]))
        #expect(extra.acceptableStatusCodes == IndexSet(integersIn: 200..<300))
        let any = ClientValidation(additionalContentTypes: ["text/html"]).applied(to: ResponseValidation())
        #expect(any.acceptableContentTypes == nil, "a serializer that accepts any type stays so")
        let replaced = ClientValidation(acceptableStatusCodes: IndexSet([418]), acceptableContentTypes: ["A/B"]).applied(to: json)
        #expect(replaced.acceptableStatusCodes == IndexSet([418]) && replaced.acceptableContentTypes == ["a/b"])
        let serializer = ClientValidation(acceptableStatusCodes: IndexSet([299])).applied(to: DecodableResponseSerializer(Document.self))
        #expect(serializer.acceptableStatusCodes == IndexSet([299]))
    }

    @Test func theClientDecoderDecodesTheAsForms() async throws {
        try await withClient { _, base in
            struct Stamp: Decodable, Sendable { let at: Date }
            var client = base
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            client.decoder = decoder
            let stamp: Stamp = try await client.get(Self.reply("application/json", #"{"at": 86400}"#))
            #expect(stamp.at == Date(timeIntervalSince1970: 86400))
        }
    }

    @Test func jsonCanDropKeysWithNullValuesAtAnyDepth() async throws {
        try await withClient { _, client in
            let url = Self.reply("application/json", #"{"a": null, "b": {"c": null, "d": 1}, "e": [{"f": null, "g": [null]}]}"#)
            let kept = try await client.get(url, serializer: JSONResponseSerializer())
            #expect(kept["a"] == .null)
            let stripped = try await client.get(url, serializer: JSONResponseSerializer(removesKeysWithNullValues: true))
            #expect(stripped == ["b": ["d": 1], "e": [["g": [.null]]]], "array elements stay; only object keys go")
        }
    }

    #if canImport(FoundationXML) || os(macOS)
    @Test func xmlIsCheckedAndGivesADocumentAndAParser() async throws {
        try await withClient { _, client in
            let body = "<feed><item><title>One</title></item><item><title>Two</title></item></feed>"
            let xml = try await client.get(Self.reply("application/xml; charset=utf-8", body), serializer: XMLResponseSerializer())
            #expect(xml.rootElementName == "feed")
            let titles = try xml.document().nodes(forXPath: "//item/title").compactMap(\.stringValue)
            #expect(titles == ["One", "Two"])
            #expect(xml.parser().parse())

            let malformed = await #expect(throws: NetworkingError.self) {
                try await client.get(Self.reply("text/xml", "<feed><item></feed>"), serializer: XMLResponseSerializer())
            }
            #expect(malformed?.kind == .responseSerializationFailed)
            #expect(malformed?.body != nil)

            let json = await #expect(throws: NetworkingError.self) {
                try await client.get("json", serializer: XMLResponseSerializer())
            }
            #expect(json?.kind == .unacceptableContentType("application/json"))

            var client = client
            client.responseSerializer = XMLResponseSerializer()
            let untyped = try await client.get(Self.reply("text/xml", "<a/>"))
            #expect((untyped as? XMLBody)?.rootElementName == "a")
        }
    }
    #endif
}
