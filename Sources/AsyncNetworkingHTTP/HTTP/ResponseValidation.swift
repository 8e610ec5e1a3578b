import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a response serializer accepts before it reads the body: status codes, content types, and
/// which responses may have an empty body (AFNetworking's `AFHTTPResponseSerializer` validation).
///
/// Checks run in this order, each failure carrying the request, the response and the body:
/// 1. the status code must be in ``acceptableStatusCodes``, else
///    ``NetworkingError/Kind/unacceptableStatusCode(_:)`` (checked first, so an error status with
///    an HTML or JSON error page reports the status, and the page is in ``NetworkingError/body``);
/// 2. when the body is not empty and ``acceptableContentTypes`` is not `nil`, the response's MIME
///    type must match one of them, else ``NetworkingError/Kind/unacceptableContentType(_:)``.
public struct ResponseValidation: Sendable, Hashable {
    /// Status codes accepted. Default `200..<300`.
    public var acceptableStatusCodes: IndexSet
    /// MIME types accepted (lowercase, without parameters; `text/*` and `*/*` wildcards work), or
    /// `nil` to accept any. The default depends on the serializer.
    public var acceptableContentTypes: Set<String>?
    /// Status codes whose empty body is a valid, empty result. Default `[204, 205]`.
    public var emptyResponseStatusCodes: Set<Int>
    /// Request methods whose empty body is a valid, empty result. Default `[.head]`.
    public var emptyRequestMethods: Set<HTTPMethod>

    /// Creates a validation; every argument has the default described on its property.
    public init(
        acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = nil,
        emptyResponseStatusCodes: Set<Int> = [204, 205],
        emptyRequestMethods: Set<HTTPMethod> = [.head]
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes.map { Set($0.map { $0.lowercased() }) }
        self.emptyResponseStatusCodes = emptyResponseStatusCodes
        self.emptyRequestMethods = emptyRequestMethods
    }

    /// The JSON types AFNetworking accepts: `application/json`, `text/json`, `text/javascript`.
    public static let jsonContentTypes: Set<String> = ["application/json", "text/json", "text/javascript"]

    /// Throws when the status code or the content type is not acceptable (see the type's overview).
    public func validate(_ data: Data, response: HTTPURLResponse, request: URLRequest?) throws(NetworkingError) {
        let body = data.isEmpty ? nil : data
        guard acceptableStatusCodes.contains(response.statusCode) else {
            throw NetworkingError(
                .unacceptableStatusCode(response.statusCode),
                "status \(response.statusCode) is not acceptable",
                request: request, response: response, body: body
            )
        }
        guard !data.isEmpty, let acceptable = acceptableContentTypes else { return }
        let mimeType = Self.mimeType(of: response)
        guard let mimeType, Self.matches(mimeType, acceptable) else {
            throw NetworkingError(
                .unacceptableContentType(mimeType),
                "content type \(mimeType ?? "(none)") is not one of \(acceptable.sorted().joined(separator: ", "))",
                request: request, response: response, body: body
            )
        }
    }

    /// Whether an empty body is a valid empty result for this response: its status is in
    /// ``emptyResponseStatusCodes`` or the request's method in ``emptyRequestMethods``.
    public func allowsEmptyBody(response: HTTPURLResponse, request: URLRequest?) -> Bool {
        if emptyResponseStatusCodes.contains(response.statusCode) { return true }
        guard let method = request?.httpMethod else { return false }
        return emptyRequestMethods.contains(HTTPMethod(method.uppercased()))
    }

    /// The response's MIME type: the `Content-Type` header before any `;`, trimmed and lowercased.
    static func mimeType(of response: HTTPURLResponse) -> String? {
        guard let header = response.value(forHTTPHeaderField: "Content-Type") else { return nil }
        let type = header.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The `charset` parameter of the response's `Content-Type`, lowercased and unquoted.
    static func charset(of response: HTTPURLResponse) -> String? {
        guard let header = response.value(forHTTPHeaderField: "Content-Type") else { return nil }
        for parameter in header.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value.lowercased()
        }
        return nil
    }

    private static func matches(_ mimeType: String, _ acceptable: Set<String>) -> Bool {
        if acceptable.contains(mimeType) || acceptable.contains("*/*") { return true }
        guard let slash = mimeType.firstIndex(of: "/") else { return false }
        return acceptable.contains(mimeType[..<slash] + "/*")
    }
}
