import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One header field: a name and a value.
public struct HTTPHeader: Sendable, Hashable, CustomStringConvertible {
    /// The field name as given (matching is case-insensitive).
    public let name: String
    /// The field value.
    public let value: String

    /// A header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `Name: value`.
    public var description: String { "\(name): \(value)" }
}

/// A request's or a client's header fields: case-insensitive names, kept in the order they were
/// first set (so a request shows its headers as written), one value per name.
///
/// Accepted wherever a client call takes headers. It is a dictionary literal, so existing call
/// sites keep compiling, and an array literal of ``HTTPHeader`` helpers:
///
/// ```swift
/// try await client.get("me", headers: ["X-Trace": "t1"], as: Me.self)
/// try await client.get("me", headers: [.authorization(bearerToken: token), .accept("application/json")], as: Me.self)
/// client.defaultHeaders.update(.userAgent("demo/1.0"))
/// client.defaultHeaders["accept-language"] = nil               // same field as Accept-Language
/// ```
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral,
    Sequence, CustomStringConvertible {
    private var fields: [HTTPHeader] = []

    /// No headers.
    public init() {}

    /// The headers of `dictionary`, in name order (a dictionary has no order of its own).
    public init(_ dictionary: [String: String]) {
        for name in dictionary.keys.sorted() { update(name: name, value: dictionary[name]!) }
    }

    /// Received fields, in order; a repeated name's values are joined with `, ` at its first place
    /// (RFC 9110 list syntax), as ``add(name:value:)`` does.
    init(trailerFields fields: [(name: String, value: String)]) {
        for field in fields { add(name: field.name, value: field.value) }
    }

    /// The headers of `headers`, in order; a repeated name keeps its last value at its first place.
    public init(_ headers: [HTTPHeader]) {
        for header in headers { update(header) }
    }

    /// The headers of the literal, in order; a repeated name (in any case) keeps its last value.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { update(name: name, value: value) }
    }

    /// The headers of the literal, in order: `[.accept("text/html"), .authorization(bearerToken: t)]`.
    public init(arrayLiteral elements: HTTPHeader...) {
        self.init(elements)
    }

    /// Sets `name` to `value`: replaces the value of an existing field of that name (in any case,
    /// keeping its place and spelling), else appends the field.
    public mutating func update(name: String, value: String) {
        if let index = index(of: name) {
            fields[index] = HTTPHeader(name: fields[index].name, value: value)
        } else {
            fields.append(HTTPHeader(name: name, value: value))
        }
    }

    /// Sets `header`; see ``update(name:value:)``.
    public mutating func update(_ header: HTTPHeader) {
        update(name: header.name, value: header.value)
    }

    /// Adds `value` to `name`: appended with `, ` when the field exists (RFC 9110 list syntax),
    /// else a new field.
    public mutating func add(name: String, value: String) {
        if let index = index(of: name) {
            fields[index] = HTTPHeader(name: fields[index].name, value: fields[index].value + ", " + value)
        } else {
            fields.append(HTTPHeader(name: name, value: value))
        }
    }

    /// Removes the field named `name` (in any case), if any.
    public mutating func remove(name: String) {
        if let index = index(of: name) { fields.remove(at: index) }
    }

    /// The value of `name` (case-insensitive), or `nil`. Setting `nil` removes the field.
    public subscript(name: String) -> String? {
        get { index(of: name).map { fields[$0].value } }
        set {
            if let newValue { update(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// The value of `name` (case-insensitive), or `nil`.
    public func value(for name: String) -> String? { self[name] }

    /// Whether a field named `name` (in any case) is present.
    public func contains(name: String) -> Bool { index(of: name) != nil }

    /// These headers with `other`'s set over them (`other` wins; order: these, then new names).
    public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        for header in other { merged.update(header) }
        return merged
    }

    /// The fields, in order.
    public var all: [HTTPHeader] { fields }
    /// How many fields there are.
    public var count: Int { fields.count }
    /// Whether there are none.
    public var isEmpty: Bool { fields.isEmpty }
    /// The fields as a dictionary (names as given).
    public var dictionary: [String: String] {
        Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[HTTPHeader]> { fields.makeIterator() }

    /// One `Name: value` per line.
    public var description: String { fields.map(\.description).joined(separator: "\n") }

    /// Equal when they have the same fields (names compared case-insensitively) with the same
    /// values, in any order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy { rhs[$0.name] == $0.value }
    }

    /// Consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(Set(fields.map { "\($0.name.lowercased()):\($0.value)" }))
    }

    private func index(of name: String) -> Int? {
        // Field names are tokens (RFC 9110 §5.1): ASCII case folding, no Foundation call.
        fields.firstIndex { ResponseHead.sameName($0.name, name) }
    }
}

extension URLRequest {
    /// Sets every field of `headers` on the request (replacing fields of the same names).
    package mutating func setHeaders(_ headers: HTTPHeaders) {
        for header in headers { setValue(header.value, forHTTPHeaderField: header.name) }
    }
}
