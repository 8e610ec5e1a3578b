@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingHTTP

/// Parameter encoding styles: arrays, Booleans, dates, spaces, key order.
@Suite("HTTPClient: parameter encoding styles")
struct HTTPClientEncodingTests {
    static let values: [String: JSONValue] = ["q": "a b", "tags": ["x", "y"], "on": true, "n": ["k": 1]]

    @Test func arrayBoolSpaceStylesWriteTheExpectedQuery() {
        #expect(URLEncoding.queryString(from: Self.values, style: .default) == "n%5Bk%5D=1&on=1&q=a%20b&tags%5B%5D=x&tags%5B%5D=y")
        let php = URLEncoding.Style(arrayEncoding: .indexed, boolEncoding: .literal, spaceEncoding: .plus)
        #expect(URLEncoding.queryString(from: Self.values, style: php) == "n%5Bk%5D=1&on=true&q=a+b&tags%5B0%5D=x&tags%5B1%5D=y")
        let flat = URLEncoding.Style(arrayEncoding: .noBrackets)
        #expect(URLEncoding.queryString(from: Self.values, style: flat) == "n%5Bk%5D=1&on=1&q=a%20b&tags=x&tags=y")
        #expect(URLEncoding.queryString(from: ["plus": "1+1"], style: php) == "plus=1%2B1", "a literal + stays escaped")
        #expect(URLEncoding.queryString(from: Self.values) == URLEncoding.queryString(from: Self.values, style: .default),
                "the old entry point is the default style")
    }

    @Test func keyOrderIsSortedByDefaultOrAsGiven() throws {
        let pairs: [(String, JSONValue)] = [("b", 1), ("a", 2), ("c", ["z": 1, "y": 2])]
        #expect(URLEncoding.queryString(from: pairs, style: .default) == "a=2&b=1&c%5By%5D=2&c%5Bz%5D=1")
        let insertion = URLEncoding.Style(keyOrdering: .insertion)
        #expect(URLEncoding.queryString(from: pairs, style: insertion) == "b=1&a=2&c%5By%5D=2&c%5Bz%5D=1")
        let ordered = try Parameters.ordered(["zeta": 1, "alpha": 2]).pairs(style: insertion)
        #expect(ordered.map(\.0) == ["zeta", "alpha"])
    }

    @Test func datesAreWrittenAsISO8601SecondsOrMilliseconds() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        func query(_ encoding: URLEncoding.Style.DateEncoding, _ parameters: Parameters) throws -> String {
            let style = URLEncoding.Style(dateEncoding: encoding)
            return URLEncoding.queryString(from: try parameters.pairs(style: style), style: style)
        }
        let untyped = Parameters.untyped(["at": date, "list": [date]])
        #expect(try query(.iso8601, untyped) == "at=2023-11-14T22%3A13%3A20Z&list%5B%5D=2023-11-14T22%3A13%3A20Z")
        #expect(try query(.secondsSince1970, untyped) == "at=1700000000.25&list%5B%5D=1700000000.25")
        #expect(try query(.millisecondsSince1970, untyped) == "at=1700000000250&list%5B%5D=1700000000250")
        struct Event: Encodable, Sendable { let at: Date }
        #expect(try query(.millisecondsSince1970, .encodable(Event(at: date))) == "at=1700000000250")
        #expect(try query(.iso8601, .encodable(Event(at: date))) == "at=2023-11-14T22%3A13%3A20Z")
    }

    @Test func theClientSendsItsSerializersStyleInTheQueryAndTheForm() async throws {
        try await withClient { server, client in
            var client = client
            client.requestSerializer = URLEncodedRequestSerializer(style: URLEncoding.Style(
                arrayEncoding: .indexed, boolEncoding: .literal, dateEncoding: .secondsSince1970,
                spaceEncoding: .plus, keyOrdering: .insertion
            ))
            let parameters = Parameters.ordered(["z": "a b", "ids": [1, 2], "ok": false])
            let _: Echo = try await client.get("echo", parameters: parameters)
            #expect(server.requests.last?.target == "/echo?z=a+b&ids%5B0%5D=1&ids%5B1%5D=2&ok=false")
            let form: Echo = try await client.post("echo", parameters: .untyped(["when": Date(timeIntervalSince1970: 10)]))
            #expect(form.body == "when=10")
            #expect(form.headers["content-type"] == "application/x-www-form-urlencoded")
            // JSON bodies write ordered parameters as an object.
            client.requestSerializer = JSONRequestSerializer()
            let json: Echo = try await client.post("echo", parameters: parameters)
            #expect(json.body == #"{"ids":[1,2],"ok":false,"z":"a b"}"#)
        }
    }
}
