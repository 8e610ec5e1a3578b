// Fuzz target: Set-Cookie (RFC 6265bis §5.6): the field parser (name, value, attributes, Max-Age
// of any length and sign, Expires in any of the lenient date forms), the storage model of a
// cookie jar for a request URL picked by the input, the Cookie header it then sends, and the
// splitting of a value FoundationNetworking combined from several fields.
//
// Properties: no trap or sanitizer report; an expiry is never more than 400 days ahead; a stored
// cookie is sent back in a Cookie header free of CR, LF and NUL.
import Foundation
@testable import AsyncNetworkingCore

private let urls = [
    "https://example.com/", "http://sub.example.com/a/b?c", "https://127.0.0.1:8443/x/", "http://[::1]/",
    "https://a.b.c.example.co.uk/deep/path/", "http://localhost/",
].map { URL(string: $0)! }
private let now = Date(timeIntervalSince1970: 1_700_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let url = input.pick(urls)
    let text = input.restText()
    for value in [text] + SetCookieParser.splitCombined(text) {
        guard let cookie = SetCookieParser.parse(value) else { continue }
        if let expiry = cookie.expiryDate(receivedAt: now) {
            precondition(expiry == .distantPast || expiry <= now.addingTimeInterval(400 * 86_400))
        }
    }
    if let date = CookieDateParser.parse(text) {
        precondition(date.timeIntervalSince1970.isFinite)
    }
    let jar = CookieJar(publicSuffixes: ["co.uk", "com"])
    jar.setCookies(fromSetCookieValues: text.split(separator: "\n").map(String.init), for: url)
    if let header = jar.cookieHeader(for: url) {
        precondition(!header.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 })
    }
    return 0
}
