/// An HTTP request method, such as ``get`` or ``post``.
///
/// A small `RawRepresentable` wrapper rather than a closed enum, so extension methods
/// (`PROPFIND`, `QUERY`, ...) can be written as `HTTPMethod("QUERY")` or the literal `"QUERY"`.
/// The raw value is sent exactly as given (methods are case-sensitive in HTTP).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token as sent on the wire, e.g. `"GET"`.
    public let rawValue: String

    /// Wraps a method token; it is sent as given.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a method token; it is sent as given.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Wraps a method token written as a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The raw value.
    public var description: String { rawValue }

    /// `GET`: parameters go in the query string by default.
    public static let get = HTTPMethod("GET")
    /// `HEAD`: parameters go in the query string; the response has no body.
    public static let head = HTTPMethod("HEAD")
    /// `POST`: parameters go in the body by default.
    public static let post = HTTPMethod("POST")
    /// `PUT`: parameters go in the body by default.
    public static let put = HTTPMethod("PUT")
    /// `PATCH`: parameters go in the body by default.
    public static let patch = HTTPMethod("PATCH")
    /// `DELETE`: parameters go in the query string by default (as in AFNetworking).
    public static let delete = HTTPMethod("DELETE")
    /// `OPTIONS`.
    public static let options = HTTPMethod("OPTIONS")

    /// The methods whose parameters AFNetworking encodes in the URL rather than the body:
    /// `GET`, `HEAD` and `DELETE`. The default of every request serializer's
    /// `methodsEncodingParametersInURL`.
    public static let encodingParametersInURL: Set<HTTPMethod> = [.get, .head, .delete]
}
