import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Header fields with case-insensitive names, as the cache stores and compares them. Pure.
///
/// Each name keeps the spelling it was first set with; a field set twice keeps the last value
/// (HTTPURLResponse has already joined repeated lines with `,`).
struct HeaderFields: Sendable, Hashable, Codable {
    /// One field as stored.
    struct Field: Sendable, Hashable, Codable {
        var name: String
        var value: String
    }

    /// Lower-cased name → field.
    private var storage: [String: Field] = [:]

    /// No fields.
    init() {}

    /// The fields of a dictionary (a response's `allHeaderFields`, a request's `allHTTPHeaderFields`).
    init(_ dictionary: [String: String]) {
        for (name, value) in dictionary { self[name] = value }
    }

    /// The fields of a response.
    init(_ response: HTTPURLResponse) {
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            self[name] = value as? String ?? String(describing: value)
        }
    }

    /// The value of `name`, compared case-insensitively; setting `nil` removes it.
    subscript(name: String) -> String? {
        get { storage[name.lowercased()]?.value }
        set {
            let key = name.lowercased()
            if let newValue {
                storage[key] = Field(name: storage[key]?.name ?? name, value: newValue)
            } else {
                storage[key] = nil
            }
        }
    }

    /// Every field as a dictionary keyed by the stored spelling of its name.
    var dictionary: [String: String] {
        Dictionary(storage.values.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The lower-cased names present.
    var names: Set<String> { Set(storage.keys) }

    /// Whether no field is set.
    var isEmpty: Bool { storage.isEmpty }

    /// The comma-separated tokens of a list field (`Vary`, `Connection`), lower-cased and trimmed.
    func tokens(_ name: String) -> [String] {
        guard let value = self[name] else { return [] }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    // Codable as a plain list of fields, sorted by name so equal headers encode equally.
    init(from decoder: any Decoder) throws {
        for field in try [Field](from: decoder) { self[field.name] = field.value }
    }

    func encode(to encoder: any Encoder) throws {
        try storage.values.sorted { $0.name.lowercased() < $1.name.lowercased() }.encode(to: encoder)
    }
}
