@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingHTTP

/// Numbers in queries, forms and bodies are written as people write them; `Decimal`s keep their digits.
@Suite struct NumberSerializationTests {
    static let price = Decimal(string: "19.99")!
    static let big = Decimal(string: "12345678901234567.891")!

    @Test func wholeDoublesHaveNoFraction() {
        #expect(URLEncoding.queryString(from: ["c": 1.0]) == "c=1")
        #expect(URLEncoding.queryString(from: ["a": -3.0, "b": 0.0, "c": 2.5, "d": 1e15]) == "a=-3&b=0&c=2.5&d=1000000000000000")
        #expect(URLEncoding.queryString(from: ["x": .double(19.99)]) == "x=19.99")
        #expect(URLEncoding.text(of: 1e300) == "1e+300")
    }

    @Test func decimalsKeepTheirDigitsInQueries() throws {
        #expect(URLEncoding.queryString(from: ["p": .decimal(Self.price)]) == "p=19.99")
        #expect(URLEncoding.queryString(from: ["p": .decimal(Self.big)]) == "p=12345678901234567.891")
        let untyped = try Parameters.untyped(["p": Self.price, "n": NSDecimalNumber(string: "0.1")]).values()
        #expect(URLEncoding.queryString(from: untyped) == "n=0.1&p=19.99")
    }

    @Test func decimalsKeepTheirDigitsInJSONBodies() throws {
        let request = URLRequest(url: URL(string: "http://127.0.0.1/x")!)
        var post = request
        post.httpMethod = "POST"
        let untyped = try JSONRequestSerializer().serialize(post, with: .untyped(["p": Self.price, "q": [Self.big] as [any Sendable]]))
        #expect(String(decoding: untyped.httpBody ?? Data(), as: UTF8.self) == #"{"p":19.99,"q":[12345678901234567.891]}"#)
        let values = try JSONRequestSerializer().serialize(post, with: ["p": .decimal(Self.price), "c": 1.0])
        #expect(String(decoding: values.httpBody ?? Data(), as: UTF8.self) == #"{"c":1,"p":19.99}"#)
    }

    struct Order: Encodable, Sendable {
        var price: Decimal
        var total: Decimal
        var count: Double
    }

    @Test func encodableDecimalsKeepTheirDigitsInQueriesAndForms() throws {
        let order = Order(price: Self.price, total: Self.big, count: 2)
        let values = try Parameters.encodable(order).values()
        #expect(URLEncoding.queryString(from: values) == "count=2&price=19.99&total=12345678901234567.891")
    }

    @Test func propertyListsTakeTheNearestDouble() throws {
        var post = URLRequest(url: URL(string: "http://127.0.0.1/x")!)
        post.httpMethod = "POST"
        let request = try PropertyListRequestSerializer().serialize(post, with: ["p": .decimal(Self.price)])
        let plist = try PropertyListSerialization.propertyList(from: request.httpBody ?? Data(), format: nil) as? [String: Any]
        #expect((plist?["p"] as? Double) == 19.99)
    }

    @Test func jsonValueAccessorsUnderstandDecimals() {
        #expect(JSONValue.decimal(Self.price).doubleValue == 19.99)
        #expect(JSONValue.decimal(Decimal(42)).intValue == 42)
        #expect(JSONValue.decimal(Self.price).intValue == nil)
        #expect(JSONValue.double(0.1).decimalValue == Decimal(string: "0.1"))
    }

    @Test func roundTripThroughTheEchoRoute() async throws {
        try await withClient { _, client in
            let get: Echo = try await client.get("echo", parameters: ["c": 1.0, "p": .decimal(Self.price), "u": .untypedDecimal])
            #expect(get.query["c"] == "1")
            #expect(get.query["p"] == "19.99")

            let form: Echo = try await client.post("echo", parameters: .untyped(["p": Self.price, "c": 1.0]))
            #expect(form.body == "c=1&p=19.99")

            var json = client
            json.requestSerializer = JSONRequestSerializer()
            let body: Echo = try await json.post("echo", parameters: .untyped(["p": Self.price, "c": 1.0]))
            #expect(body.body == #"{"c":1,"p":19.99}"#)
        }
    }
}

extension JSONValue {
    /// A decimal with more digits than a `Double` holds.
    static let untypedDecimal = JSONValue.decimal(Decimal(string: "0.30000000000000000001")!)
}
