import Foundation

/// Transforms a response body before validation and decoding (Alamofire's `DataPreprocessor`).
///
/// ```swift
/// let feed = try await client.send(.get("feed", as: Feed.self).preprocess(.stripXSSIPrefix()))
/// ```
public struct DataPreprocessor: Sendable {
    /// Returns the body to validate and decode; throw to fail the request with
    /// ``NetworkingError/Kind/responseSerializationFailed``.
    public typealias Transform = @Sendable (_ data: Data) throws -> Data

    let transform: Transform

    /// A pre-processor that runs `transform`.
    public init(_ transform: @escaping Transform) {
        self.transform = transform
    }

    /// Leaves the body as it is.
    public static let passThrough = DataPreprocessor { $0 }

    /// The anti-XSSI prefixes servers put before JSON: `)]}',` and `)]}'` (Google, Angular),
    /// `while(1);` and `for(;;);`.
    public static let xssiPrefixes = [")]}',", ")]}'", "while(1);", "for(;;);"]

    /// Removes the first of `prefixes` the body starts with, and the line break after it; any
    /// other body passes through unchanged.
    public static func stripXSSIPrefix(_ prefixes: [String] = xssiPrefixes) -> DataPreprocessor {
        let encoded = prefixes.map { Data($0.utf8) }
        return DataPreprocessor { data in
            guard let prefix = encoded.first(where: { data.starts(with: $0) }) else { return data }
            var rest = data.dropFirst(prefix.count)
            if rest.first == UInt8(ascii: "\r") { rest = rest.dropFirst() }
            if rest.first == UInt8(ascii: "\n") { rest = rest.dropFirst() }
            return Data(rest)
        }
    }
}
