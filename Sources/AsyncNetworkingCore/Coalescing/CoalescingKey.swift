import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What makes two requests "identical" for coalescing: a `GET` without body to the same URL, with
/// the same header fields (names compared case-insensitively, values exactly, order ignored), the
/// same timeout and cache policy, and the same ``TransferOptions`` (apart from
/// ``TransferOptions/coalescesIdenticalRequests`` itself).
package struct CoalescingKey: Hashable, Sendable {
    let url: String
    let headers: [String: String]
    let timeout: TimeInterval
    let cachePolicy: UInt
    let options: TransferOptions
    /// Which front door (the manager's `data(for:)` or an ``HTTPClient`` call): results differ in kind.
    let door: String

    /// `nil` when `request` may not share a transfer: not a `GET`, or it has a body.
    package init?(_ request: URLRequest, options: TransferOptions, door: String) {
        guard (request.httpMethod ?? "GET").uppercased() == "GET", request.httpBody == nil,
              request.httpBodyStream == nil, let url = request.url else { return nil }
        self.url = url.absoluteString
        var headers: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers[name.lowercased()] = value }
        self.headers = headers
        self.timeout = request.timeoutInterval
        self.cachePolicy = request.cachePolicy.rawValue
        var options = options
        options.coalescesIdenticalRequests = false
        options.completionHold = nil
        self.options = options
        self.door = door
    }
}
