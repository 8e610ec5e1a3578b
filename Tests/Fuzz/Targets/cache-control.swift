// Fuzz target: the HTTP cache's reading of a response: Cache-Control (max-age, s-maxage,
// max-stale, min-fresh of any length, quoted, repeated), Age, Date, Expires and Last-Modified,
// Vary, the freshness lifetime and current age, whether it may be stored, and the decision for a
// request whose own Cache-Control comes from the input too.
//
// Properties: no trap or sanitizer report; delta-seconds are at most 2^31; lifetimes and ages are
// finite and non-negative; a replayed response's Age is a whole number.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import AsyncNetworkingHTTP

private let names = ["Cache-Control", "Age", "Date", "Expires", "Last-Modified", "Vary", "Pragma", "ETag"]
private let url = URL(string: "http://127.0.0.1/resource")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let status = input.pick([200, 203, 204, 206, 301, 304, 404, 410, 500])
    let now = Date(timeIntervalSince1970: Double(input.byte()) * 10_000_000)
    // Fields separated by 0x01; the first of each names the field by its index.
    var response = HeaderFields()
    var request = HeaderFields()
    for field in input.restText().split(separator: "\u{1}") {
        guard let first = field.unicodeScalars.first else { continue }
        let name = names[Int(first.value) % names.count]
        let value = String(field.unicodeScalars.dropFirst())
        if first.value & 0x40 == 0 { response[name] = value } else { request[name] = value }
    }
    for control in [CacheControl(response["Cache-Control"]), CacheControl(request: request)] {
        for seconds in [control.maxAge, control.sharedMaxAge, control.minFresh].compactMap({ $0 }) {
            precondition(seconds >= 0 && seconds <= 2_147_483_648)
        }
        if let stale = control.maxStale { precondition(stale >= 0) }
    }
    let lifetime = CacheFreshness.lifetime(headers: response, statusCode: status, responseTime: now)
    let age = CacheFreshness.currentAge(headers: response, requestTime: now, responseTime: now, now: now.addingTimeInterval(5))
    precondition(lifetime.isFinite && lifetime >= 0 && age.isFinite && age >= 0)
    _ = CacheStorability.refusal(method: "GET", requestHeaders: request, statusCode: status, responseHeaders: response, responseTime: now)
    let vary = VaryMatching.fields(of: response).map { VaryMatching.fingerprints(of: request, fields: $0) } ?? [:]
    let head = StoredResponse.Head(
        key: "GET \(url)", url: url, statusCode: status, headers: response, requestTime: now, responseTime: now, vary: vary
    )
    for mode in [CacheRequestMode.protocolRules, .storedElseLoad, .revalidate] {
        _ = CacheDecision.decide(mode: mode, requestHeaders: request, stored: head, now: now.addingTimeInterval(Double(status)))
    }
    if status == 200 { // 1 input in 9: an HTTPURLResponse costs more than the rest of the run
        let replayed = StoredResponse(head: head, body: Data()).httpResponse(age: age)
        precondition(Int(replayed.value(forHTTPHeaderField: "Age") ?? "") != nil)
    }
    return 0
}
