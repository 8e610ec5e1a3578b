import Foundation

/// AFNetworking's query-string construction (`AFQueryStringFromParameters`), as pure functions.
///
/// - Keys are sorted (by `String` order) at every level, so the output is stable.
/// - A nested object becomes `outer[inner]=value`; an array becomes `key[]=element` per element
///   (objects inside arrays: `key[][inner]=value`).
/// - ``JSONValue/null`` is the escaped key alone (no `=`); empty arrays and objects add nothing.
/// - Numbers are written as people write them: a whole `Double` without `.0` (`c=1`, as AFNetworking
///   and Alamofire send it), a `Decimal` with exactly its digits (`19.99`).
/// - Keys and values are escaped with ``percentEscaped(_:)``, so brackets appear as `%5B`/`%5D`:
///   `["a": ["b": "c"]]` is `a%5Bb%5D=c`, exactly as AFNetworking sends it.
public enum URLEncoding {
    /// How ``JSONValue/bool(_:)`` values are written in a query or form.
    public enum BoolEncoding: Sendable, Hashable {
        /// `1` and `0`, as AFNetworking (an `NSNumber`'s description) and Alamofire send them. The default.
        case numeric
        /// `true` and `false`.
        case literal
    }

    /// The characters left unescaped: RFC 3986's query characters minus the general delimiters
    /// `:#[]@` and sub-delimiters `!$&'()*+,;=` — `?` and `/` stay (AFNetworking's
    /// `AFCharacterSetURLQueryAllowed`, RFC 3986 section 3.4).
    public static let allowedCharacters: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
        return allowed
    }()

    /// Percent-escapes `string` for a query key or value (UTF-8; see ``allowedCharacters``).
    /// A space becomes `%20` (not `+`), as in AFNetworking.
    public static func percentEscaped(_ string: String) -> String {
        // Escaping whole strings (not 50-character batches as AFNetworking must on old iOS) cannot
        // split a surrogate pair or a grapheme.
        string.addingPercentEncoding(withAllowedCharacters: allowedCharacters) ?? string
    }

    /// The `key=value` pairs of `parameters`, joined with `&`, in sorted key order.
    public static func queryString(from parameters: [String: JSONValue], boolEncoding: BoolEncoding = .numeric) -> String {
        queryString(from: parameters, style: Style(boolEncoding: boolEncoding))
    }

    /// The `key=value` pairs of `parameters`, joined with `&`, written in `style` (keys sorted at
    /// every level, whatever ``Style/keyOrdering`` says: a dictionary has no order of its own).
    public static func queryString(from parameters: [String: JSONValue], style: Style) -> String {
        queryString(from: parameters.keys.sorted().map { ($0, parameters[$0]!) }, style: style)
    }

    /// The `key=value` pairs of ordered top-level `pairs`, joined with `&`, written in `style`:
    /// the top level keeps the given order with ``Style/KeyOrdering/insertion``, else is sorted;
    /// nested objects are always sorted.
    public static func queryString(from pairs: [(String, JSONValue)], style: Style) -> String {
        let ordered = style.keyOrdering == .sorted ? pairs.sorted { $0.0 < $1.0 } : pairs
        return ordered.flatMap { key, value in fields(key: key, value: value, style: style) }
            .map { key, value in value.map { escape(key, style) + "=" + escape($0, style) } ?? escape(key, style) }
            .joined(separator: "&")
    }

    /// The flattened, unescaped fields of one parameter: `("a[b]", "c")`, `("tags[]", "x")`; a `nil`
    /// value for ``JSONValue/null`` (the key alone). Multipart forms use the same names.
    static func fields(key: String, value: JSONValue, style: Style) -> [(String, String?)] {
        switch value {
        case .object(let object):
            return object.keys.sorted().flatMap { fields(key: "\(key)[\($0)]", value: object[$0]!, style: style) }
        case .array(let array):
            return array.enumerated().flatMap { index, element in
                let name = switch style.arrayEncoding {
                case .brackets: "\(key)[]"
                case .noBrackets: key
                case .indexed: "\(key)[\(index)]"
                }
                return fields(key: name, value: element, style: style)
            }
        case .null: return [(key, nil)]
        case .string(let string): return [(key, string)]
        case .int(let number): return [(key, String(number))]
        case .double(let number): return [(key, text(of: number))]
        case .decimal(let number): return [(key, text(of: number))]
        case .bool(let flag):
            let text = switch style.boolEncoding {
            case .numeric: flag ? "1" : "0"
            case .literal: flag ? "true" : "false"
            }
            return [(key, text)]
        }
    }

    private static func escape(_ string: String, _ style: Style) -> String {
        let escaped = percentEscaped(string)
        return style.spaceEncoding == .plus ? escaped.replacingOccurrences(of: "%20", with: "+") : escaped
    }

    /// A `Double` as people write it: whole values without a fraction (`1`, not `1.0`; up to 2^53,
    /// beyond which doubles are not exact integers), else Swift's shortest round-tripping text
    /// (`19.99`, `1e+300`).
    static func text(of number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) <= 9_007_199_254_740_992 {
            return String(Int64(number))
        }
        return String(number)
    }

    /// A `Decimal` with exactly its digits (`19.99`), never through a `Double`.
    static func text(of number: Decimal) -> String {
        number.description
    }

    /// `url` with `query` appended to its query (after `&` when it already has one); `url` itself
    /// when `query` is empty. The fragment, if any, stays at the end.
    static func url(_ url: URL, appendingQuery query: String) -> URL? {
        guard !query.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        return components.url
    }
}
