import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLEncoding {
    /// How parameters are written into a query string or form: arrays, Booleans, dates, spaces and
    /// key order. The default is AFNetworking's: `a[]=1`, `1`/`0`, ISO 8601, `%20`, sorted keys.
    ///
    /// ```swift
    /// var form = URLEncodedRequestSerializer()
    /// form.style.arrayEncoding = .indexed          // a[0]=1&a[1]=2
    /// form.style.spaceEncoding = .plus             // q=swift+async
    /// client.requestSerializer = form
    /// ```
    public struct Style: Sendable, Hashable {
        /// How array elements are named.
        public enum ArrayEncoding: Sendable, Hashable {
            /// `a[]=1&a[]=2`, as AFNetworking and Rails. The default.
            case brackets
            /// `a=1&a=2`, as many Java and Go servers expect.
            case noBrackets
            /// `a[0]=1&a[1]=2`, as PHP arrays with explicit indices.
            case indexed
        }

        /// How `Date` values (in ``Parameters/untyped(_:)`` dictionaries, and `Date` properties of
        /// ``Parameters/encodable(_:)`` values) are written.
        public enum DateEncoding: Sendable, Hashable {
            /// ISO 8601 with time zone, `2001-01-01T00:00:00Z`. The default.
            case iso8601
            /// Seconds since 1970 (`978307200`, a fraction when there is one).
            case secondsSince1970
            /// Whole milliseconds since 1970 (`978307200000`).
            case millisecondsSince1970
        }

        /// How a space is written.
        public enum SpaceEncoding: Sendable, Hashable {
            /// `%20`, as AFNetworking (RFC 3986). The default.
            case percentEscaped
            /// `+`, as HTML forms (`application/x-www-form-urlencoded` in the WHATWG URL standard).
            case plus
        }

        /// The order of the top-level keys.
        public enum KeyOrdering: Sendable, Hashable {
            /// Sorted (by `String` order), as AFNetworking: stable output. The default.
            case sorted
            /// As given, for ``Parameters/ordered(_:)`` parameters (other forms are dictionaries
            /// without an order, and stay sorted). Nested objects are always sorted.
            case insertion
        }

        /// Default ``ArrayEncoding/brackets``.
        public var arrayEncoding: ArrayEncoding
        /// Default ``BoolEncoding/numeric``.
        public var boolEncoding: BoolEncoding
        /// Default ``DateEncoding/iso8601``.
        public var dateEncoding: DateEncoding
        /// Default ``SpaceEncoding/percentEscaped``.
        public var spaceEncoding: SpaceEncoding
        /// Default ``KeyOrdering/sorted``.
        public var keyOrdering: KeyOrdering

        /// Creates a style; every argument has the default described on its property.
        public init(
            arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .numeric,
            dateEncoding: DateEncoding = .iso8601, spaceEncoding: SpaceEncoding = .percentEscaped,
            keyOrdering: KeyOrdering = .sorted
        ) {
            self.arrayEncoding = arrayEncoding
            self.boolEncoding = boolEncoding
            self.dateEncoding = dateEncoding
            self.spaceEncoding = spaceEncoding
            self.keyOrdering = keyOrdering
        }

        /// AFNetworking's style. The default.
        public static let `default` = Style()

        /// A `JSONEncoder` whose date strategy matches ``dateEncoding`` (for ``Parameters/encodable(_:)``).
        func makeEncoder() -> JSONEncoder {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = switch dateEncoding {
            case .iso8601: .iso8601
            case .secondsSince1970: .secondsSince1970
            case .millisecondsSince1970: .custom { date, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(Self.milliseconds(date))
            }
            }
            return encoder
        }

        /// `date` as ``dateEncoding`` writes it.
        func value(of date: Date) -> JSONValue {
            switch dateEncoding {
            case .iso8601: .string(Self.iso8601(date))
            case .secondsSince1970: .double(date.timeIntervalSince1970)
            case .millisecondsSince1970: .int(Self.milliseconds(date))
            }
        }

        /// `value` with every `Date` (at any depth of arrays and string-keyed dictionaries)
        /// replaced by its ``JSONValue``, for an untyped dictionary.
        func replacingDates(in item: Any) -> Any {
            switch item {
            case let date as Date: value(of: date)
            case let array as [Any]: array.map(replacingDates(in:))
            case let object as [String: Any]: object.mapValues(replacingDates(in:))
            default: item
            }
        }

        private static func milliseconds(_ date: Date) -> Int {
            Int(clamping: date.timeIntervalSince1970 * 1000)
        }

        private static func iso8601(_ date: Date) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.string(from: date)
        }
    }
}

extension Parameters {
    /// Named values that keep the order written, for a serializer whose style says
    /// ``URLEncoding/Style/KeyOrdering/insertion``: `.ordered(["b": 1, "a": 2])` is `b=1&a=2`.
    /// JSON and property-list bodies write it as an object.
    public static func ordered(_ pairs: KeyValuePairs<String, JSONValue>) -> Parameters {
        .orderedValues(pairs.map { ($0.key, $0.value) })
    }

    /// The top-level pairs in the order given (``orderedValues(_:)``) or sorted, with dates and
    /// encodable values written as `style` says.
    func pairs(style: URLEncoding.Style) throws(NetworkingError) -> [(String, JSONValue)] {
        switch self {
        case .orderedValues(let pairs):
            return pairs
        case .untyped(let dictionary):
            let converted = try JSONValue(converting: style.replacingDates(in: dictionary))
            guard case .object(let values) = converted else { return [] }
            return values.keys.sorted().map { ($0, values[$0]!) }
        case .values, .encodable:
            let values = try values(encoder: style.makeEncoder())
            return values.keys.sorted().map { ($0, values[$0]!) }
        }
    }
}
