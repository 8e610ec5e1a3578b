import Foundation

/// A response body as an `AsyncSequence` of `Data` chunks, in order, from
/// ``SessionManager/stream(for:options:)``.
///
/// Iterate once. Memory stays bounded for a slow reader (chunks past the high-water mark wait in a
/// temporary file). Cancelling the reading task, or dropping the sequence before the end, cancels
/// the transfer. A transfer failure is thrown from `next()`.
public struct ResponseBody: AsyncSequence, Sendable {
    /// Each element is the next chunk of the body.
    public typealias Element = Data
    /// The sequence throws only ``NetworkingError``.
    public typealias Failure = NetworkingError

    let lifetime: ConsumerLifetime

    /// Creates the iterator; all iterators share the transfer's single buffer.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(lifetime: lifetime) }

    /// Reads body chunks, skipping progress events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let lifetime: ConsumerLifetime

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws(NetworkingError) -> Data? {
            while let event = try await lifetime.channel.next() {
                switch event {
                case .data(let data): return data
                case .trailers(let fields): lifetime.trailers = fields
                default: break
                }
            }
            return nil
        }
    }

    /// The trailer fields that followed the body (RFC 9110 §6.5), repeated names joined with
    /// `, `: set once the body has been read to its end (`next()` returned `nil`); empty before,
    /// and when the server sent none. Always empty on the URLSession transport
    /// (FoundationNetworking drops trailers). The same fields as ``TransferMetrics/trailers``.
    public var trailers: HTTPHeaders { lifetime.trailers }

    /// Reads the rest of the body into one `Data`.
    /// - Parameter limit: throw ``NetworkingError/Kind/responseTooLarge(limit:)`` past this many bytes.
    public func collect(upTo limit: Int = .max) async throws(NetworkingError) -> Data {
        var body = Data()
        for try await chunk in self {
            guard body.count + chunk.count <= limit else {
                throw NetworkingError(.responseTooLarge(limit: Int64(limit)), "the body is larger than \(limit) bytes")
            }
            body.append(chunk)
        }
        return body
    }
}
