import Testing
@testable import NetworkingPrimitives

/// Rule: every challenge of a `WWW-Authenticate` / `Proxy-Authenticate` field is read — whatever
/// its position in the list, in one field or several (RFC 9110 §11.6.1) — with its scheme, its
/// `token68` or its parameters; quoted strings keep their commas and lose their escapes; an element
/// that fits no rule is dropped, never the challenges around it.
@Suite("Authentication challenges (RFC 9110 §11.6.1)")
struct AuthenticationChallengeTests {
    typealias Challenge = AuthenticationChallenge
    typealias Parameter = AuthenticationChallenge.Parameter

    static func challenge(_ scheme: String, token68: String? = nil, _ parameters: (String, String)...) -> Challenge {
        Challenge(scheme: scheme, token68: token68, parameters: parameters.map { Parameter(name: $0.0, value: $0.1) })
    }

    static let table: [(field: [String], expected: [Challenge], note: String)] = [
        (["Basic realm=\"site\""], [challenge("basic", ("realm", "site"))], "one Basic challenge"),
        (["Bearer realm=\"api\", Basic realm=\"site\""],
         [challenge("bearer", ("realm", "api")), challenge("basic", ("realm", "site"))], "Basic after another scheme"),
        (["Bearer realm=\"api\"", "Basic realm=\"site\""],
         [challenge("bearer", ("realm", "api")), challenge("basic", ("realm", "site"))], "two fields"),
        (["Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\""],
         [challenge("newauth", ("realm", "apps"), ("type", "1"), ("title", "Login to \"apps\"")), challenge("basic", ("realm", "simple"))],
         "RFC 9110's example: parameters, an escaped quote, then Basic"),
        (["Digest realm=\"a, Basic realm=b\", nonce=\"x\", Basic realm=\"c\""],
         [challenge("digest", ("realm", "a, Basic realm=b"), ("nonce", "x")), challenge("basic", ("realm", "c"))],
         "a quoted comma is no separator"),
        (["Negotiate abc+/def==, Basic realm=\"r\""],
         [challenge("negotiate", token68: "abc+/def=="), challenge("basic", ("realm", "r"))], "token68 then a challenge"),
        (["Negotiate"], [challenge("negotiate")], "a scheme alone"),
        (["Negotiate, Basic"], [challenge("negotiate"), challenge("basic")], "bare schemes in a list"),
        (["BASIC Realm = \"Spaced\" "], [challenge("basic", ("realm", "Spaced"))], "case and BWS around ="),
        ([" , ,Basic realm=x,, ,"], [challenge("basic", ("realm", "x"))], "empty list elements"),
        (["Bearer error=\"invalid_token\", error_description=\"a, b\", Basic realm=\"x\""],
         [challenge("bearer", ("error", "invalid_token"), ("error_description", "a, b")), challenge("basic", ("realm", "x"))],
         "Bearer's error parameters"),
        (["Basic realm=\"first\", realm=\"second\""], [challenge("basic", ("realm", "first"))], "a repeated parameter keeps the first"),
        (["Digest uri=/a, realm=\"r\", Basic realm=\"b\""],
         [challenge("digest", ("realm", "r")), challenge("basic", ("realm", "b"))], "a malformed parameter is dropped, not its challenge"),
        (["=junk, Basic realm=\"b\""], [challenge("basic", ("realm", "b"))], "junk before a challenge"),
        (["Bearer realm=\"x\" trailing junk, Basic realm=\"b\""],
         [challenge("bearer", ("realm", "x")), challenge("basic", ("realm", "b"))], "junk after a value"),
        (["Basic realm=\"x\", Bearer realm=\"unterminated"], [challenge("basic", ("realm", "x"))], "an unterminated quote ends the parse"),
        ([""], [], "empty"),
        (["\"only a quote"], [], "a quote alone"),
        (["Basic realm=\"caf\u{e9}\""], [challenge("basic", ("realm", "caf\u{e9}"))], "UTF-8 in a quoted string"),
        (["Basic realm=\"back\\\\slash\""], [challenge("basic", ("realm", "back\\slash"))], "an escaped backslash"),
        (["Basic realm=\"ends with backslash\\"], [], "an escape at the end is unterminated"),
    ]

    @Test(arguments: 0..<table.count)
    func parses(_ row: Int) {
        let (field, expected, note) = Self.table[row]
        #expect(Challenge.parse(field) == expected, "\(note): \(field)")
    }

    @Test func basicIsFoundWhereverItStands() {
        let challenges = Challenge.parse(["Bearer realm=\"api\", Basic realm=\"site\""])
        #expect(Challenge.first("Basic", in: challenges)?.realm == "site")
        #expect(Challenge.first("digest", in: challenges) == nil)
    }

    @Test func hostileInputEndsQuickly() {
        let long = "Basic " + String(repeating: "a=b, ", count: 20_000) + String(repeating: ",", count: 20_000) + String(repeating: "\"", count: 10_001)
        #expect(Challenge.parse(long) == [Self.challenge("basic", ("a", "b"))])
        let bytes = (0..<10_000).map { Character(Unicode.Scalar(UInt8(truncatingIfNeeded: $0 &* 31))) }
        _ = Challenge.parse(String(bytes))
    }
}
