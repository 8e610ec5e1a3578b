@testable import AsyncNetworkingTestSupport

@Suite("HTTP request serializers")
struct HTTPRequestSerializerTests {
    // MARK: URL encoding

    @Test func nestedParametersEncodeToAFixedString() {
        let parameters: [String: JSONValue] = [
            "user": ["name": "Ada Lovelace", "langs": ["en", "fr"], "address": ["city": "London", "zip": "W1"]],
            "ids": [1, 2, 3],
            "flag": true,
            "off": false,
            "ratio": 0.5,
            "none": nil,
            "empty": [],
            "list": [["a": 1], ["b": 2]],
            "b": "z",
            "a": "y",
        ]
        let expected = "a=y&b=z&flag=1"
            + "&ids%5B%5D=1&ids%5B%5D=2&ids%5B%5D=3"
            + "&list%5B%5D%5Ba%5D=1&list%5B%5D%5Bb%5D=2"
            + "&none&off=0&ratio=0.5"
            + "&user%5Baddress%5D%5Bcity%5D=London&user%5Baddress%5D%5Bzip%5D=W1"
            + "&user%5Blangs%5D%5B%5D=en&user%5Blangs%5D%5B%5D=fr"
            + "&user%5Bname%5D=Ada%20Lovelace"
        #expect(URLEncoding.queryString(from: parameters) == expected)
        #expect(URLEncoding.queryString(from: ["t": true], boolEncoding: .literal) == "t=true")
    }

    @Test func percentEscapingFollowsRFC3986LikeAFNetworking() {
        // Reserved general and sub-delimiters are escaped, `?` and `/` are not; unreserved stay.
        #expect(URLEncoding.percentEscaped(":#[]@!$&'()*+,;=") == "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D")
        #expect(URLEncoding.percentEscaped("a/b?c") == "a/b?c")
        #expect(URLEncoding.percentEscaped("AZaz09-._~") == "AZaz09-._~")
        #expect(URLEncoding.percentEscaped("a b+c") == "a%20b%2Bc")
        #expect(URLEncoding.percentEscaped("héllo 👩‍👩‍👧") == "h%C3%A9llo%20%F0%9F%91%A9%E2%80%8D%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7")
        #expect(URLEncoding.percentEscaped("100%") == "100%25")
    }

    @Test func queryParametersAreAppendedToAnExistingQuery() throws {
        let client = HTTPClient(manager: SessionManager(), baseURL: URL(string: "http://h.test"))
        let request = try client.makeRequest(.get, "search?lang=en#top", parameters: ["q": "a&b"])
        #expect(request.url?.absoluteString == "http://h.test/search?lang=en&q=a%26b#top")
        #expect(request.httpBody == nil)
        let bare = try client.makeRequest(.get, "search", parameters: [:])
        #expect(bare.url?.absoluteString == "http://h.test/search", "empty parameters add no `?`")
    }

    @Test func urlEncodedParametersRoundTripThroughTheServer() async throws {
        try await withClient { server, client in
            let echo: Echo = try await client.get("echo", parameters: ["filter": ["tag": "a/b?c"], "ids": [1, 2]])
            #expect(echo.query["filter[tag]"] == "a/b?c")
            #expect(server.requests.last?.queryItems.map(\.0) == ["filter[tag]", "ids[]", "ids[]"])
            let posted: Echo = try await client.post("echo", parameters: ["note": "1+1=2 & more"])
            #expect(posted.body == "note=1%2B1%3D2%20%26%20more")
        }
    }

    @Test func callersContentTypeIsKept() throws {
        let client = HTTPClient(manager: SessionManager(), baseURL: URL(string: "http://h.test"))
        let request = try client.makeRequest(.post, "x", parameters: ["a": 1], headers: ["Content-Type": "application/x-custom"])
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-custom")
    }

    // MARK: JSON

    struct NewUser: Encodable, Sendable {
        let name: String
        let tags: [String]
        let createdAt: Date
    }

    @Test func jsonBodyFromParametersAndFromEncodable() async throws {
        try await withClient { server, client in
            var json = client
            json.requestSerializer = JSONRequestSerializer()
            let echo: Echo = try await json.post("echo", parameters: ["b": [1, 2.5, nil], "a": ["x": true]])
            #expect(echo.body == #"{"a":{"x":true},"b":[1,2.5,null]}"#)
            #expect(echo.headers["content-type"] == "application/json")

            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            encoder.dateEncodingStrategy = .secondsSince1970
            json.requestSerializer = JSONRequestSerializer(encoder: encoder)
            let user = NewUser(name: "Ada", tags: ["x"], createdAt: Date(timeIntervalSince1970: 10))
            let created: Echo = try await json.put("echo", parameters: .encodable(user))
            #expect(created.body == #"{"createdAt":10,"name":"Ada","tags":["x"]}"#)

            let array: Echo = try await json.patch("echo", parameters: .encodable([1, 2, 3]))
            #expect(array.body == "[1,2,3]", "an Encodable body need not be an object")

            let query: Echo = try await json.get("echo", parameters: ["q": "x"])
            #expect(query.query == ["q": "x"] && query.bodyLength == 0, "GET parameters go in the query, as AFNetworking")
            #expect(server.requests.count == 4)
        }
    }

    @Test func untypedParametersAreConverted() async throws {
        try await withClient { _, client in
            var json = client
            json.requestSerializer = JSONRequestSerializer()
            let untyped: [String: any Sendable] = [
                "n": 1, "d": 1.5, "s": "x", "b": true, "null": NSNull(), "list": [1, "two"] as [any Sendable],
                "nested": ["k": UInt8(7)] as [String: any Sendable], "ns": NSNumber(value: false), "opt": Optional<Int>.none as any Sendable,
            ]
            let echo: Echo = try await json.post("echo", parameters: .untyped(untyped))
            #expect(echo.body == #"{"b":true,"d":1.5,"list":[1,"two"],"n":1,"nested":{"k":7},"ns":false,"null":null,"opt":null,"s":"x"}"#)
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersFailBeforeSending(value: Double) async throws {
        try await withClient { server, client in
            var json = client
            json.requestSerializer = JSONRequestSerializer()
            let error = await expectNetworkingError {
                try await json.post("echo", parameters: ["x": .double(value)], as: Echo.self)
            }
            #expect(error?.kind == .requestSerializationFailed)
            #expect(error?.underlyingError is EncodingError)
            #expect(error?.request?.url?.path == "/echo")
            let handle = await expectNetworkingError { try await json.dataTask(.post, "echo", parameters: ["x": .double(value)]) }
            #expect(handle?.kind == .requestSerializationFailed)
            #expect(server.stats.requestCount == 0, "nothing reached the server")
        }
    }

    struct Unencodable: Encodable, Sendable {
        struct Refused: Error {}
        func encode(to encoder: any Encoder) throws { throw Refused() }
    }

    @Test func nonEncodableValuesFailBeforeSending() async throws {
        try await withClient { server, client in
            var json = client
            json.requestSerializer = JSONRequestSerializer()
            let throwing = await expectNetworkingError { try await json.post("echo", parameters: .encodable(Unencodable()), as: Echo.self) }
            #expect(throwing?.kind == .requestSerializationFailed)
            #expect(throwing?.underlyingError is Unencodable.Refused)

            let date = await expectNetworkingError { try await json.post("echo", parameters: .untyped(["when": Date()]), as: Echo.self) }
            #expect(date?.kind == .requestSerializationFailed)
            #expect(date?.message.contains("Date") == true && date?.message.contains("when") == true)

            let form = await expectNetworkingError { try await client.post("echo", parameters: .untyped(["a": ["b": Data()]]), as: Echo.self) }
            #expect(form?.kind == .requestSerializationFailed)
            #expect(form?.message.contains("a.b") == true)

            let notObject = await expectNetworkingError { try await client.get("echo", parameters: .encodable([1, 2]), as: Echo.self) }
            #expect(notObject?.kind == .requestSerializationFailed, "a URL query needs named parameters")
            #expect(server.stats.requestCount == 0)
        }
    }

    @Test func encodableParametersCanBeURLEncoded() throws {
        struct Filter: Encodable, Sendable { let tag: String; let page: Int; let nested: [String: Bool] }
        let client = HTTPClient(manager: SessionManager(), baseURL: URL(string: "http://h.test"))
        let request = try client.makeRequest(.get, "s", parameters: .encodable(Filter(tag: "a b", page: 2, nested: ["on": true])))
        #expect(request.url?.query == "nested%5Bon%5D=1&page=2&tag=a%20b")
    }

    // MARK: Property list

    @Test func propertyListBody() async throws {
        try await withClient { server, client in
            var plist = client
            plist.requestSerializer = PropertyListRequestSerializer()
            let echo: Echo = try await plist.post("echo", parameters: ["name": "Ada", "n": 3, "list": [true, 1.5]])
            #expect(echo.headers["content-type"] == "application/x-plist")
            let body = try #require(echo.body?.data(using: .utf8))
            let object = try PropertyListSerialization.propertyList(from: body, format: nil) as? [String: Any]
            #expect(object?["name"] as? String == "Ada")
            #expect((object?["n"] as? NSNumber)?.intValue == 3)
            #expect(echo.body?.hasPrefix("<?xml") == true)

            struct Item: Encodable, Sendable { let id: Int }
            let encoded: Echo = try await plist.put("echo", parameters: .encodable(Item(id: 9)))
            let decoded = try PropertyListSerialization.propertyList(from: Data((encoded.body ?? "").utf8), format: nil) as? [String: Any]
            #expect((decoded?["id"] as? NSNumber)?.intValue == 9)

            let error = await expectNetworkingError { try await plist.post("echo", parameters: ["a": ["b": nil]], as: Echo.self) }
            #expect(error?.kind == .requestSerializationFailed)
            #expect(error?.message.contains("a.b") == true)
            #expect(server.stats.requestCount == 2)
        }
    }

    // MARK: Default headers

    @Test func acceptLanguageHasDecreasingQualityLikeAFNetworking() {
        #expect(DefaultHeaders.acceptLanguage(preferredLanguages: ["en-US", "fr", "de"]) == "en-US;q=1.0, fr;q=0.9, de;q=0.8")
        let many = DefaultHeaders.acceptLanguage(preferredLanguages: ["a", "b", "c", "d", "e", "f", "g", "h"])
        #expect(many == "a;q=1.0, b;q=0.9, c;q=0.8, d;q=0.7, e;q=0.6, f;q=0.5", "at most six, down to q=0.5")
        #expect(DefaultHeaders.acceptLanguage(preferredLanguages: []) == "en;q=1.0")
        #expect(DefaultHeaders.standard["Accept-Language"]?.isEmpty == false)
    }

    @Test func userAgentIsBuiltFromTheProcess() {
        let agent = DefaultHeaders.userAgent()
        #if os(Linux)
        // No bundle on Linux: the process name, no version, then the kernel version.
        #expect(agent.hasPrefix(ProcessInfo.processInfo.processName.filter(\.isASCII) + " (Linux "), "\(agent)")
        #endif
        #expect(agent.hasSuffix(" AsyncNetworking"))
        #expect(agent.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 })
    }
}
