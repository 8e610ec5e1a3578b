import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The verbs without `as:` or `serializer:`: the body goes through the client-wide
/// ``HTTPClient/responseSerializer`` (default JSON) and ``HTTPClient/validation``, and the result is
/// its output as `any Sendable` — AFNetworking's `id responseObject`.
///
/// ```swift
/// client.responseSerializer = XMLResponseSerializer()
/// let feed = try await client.get("feed.xml") as? XMLDocument
/// ```
///
/// Suspends until the body has arrived and been serialized; cancelling the calling task cancels the
/// transfer and throws ``NetworkingError/Kind/cancelled``.
extension HTTPClient {
    /// Sends a `GET` and returns what ``responseSerializer`` makes of the response.
    @discardableResult
    public func get(_ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:]) async throws(NetworkingError) -> any Sendable {
        try await request(.get, url, parameters: parameters, headers: headers, serializer: clientSerializer).value
    }

    /// Sends a `POST` and returns what ``responseSerializer`` makes of the response.
    @discardableResult
    public func post(_ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:]) async throws(NetworkingError) -> any Sendable {
        try await request(.post, url, parameters: parameters, headers: headers, serializer: clientSerializer).value
    }

    /// Sends a `PUT` and returns what ``responseSerializer`` makes of the response.
    @discardableResult
    public func put(_ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:]) async throws(NetworkingError) -> any Sendable {
        try await request(.put, url, parameters: parameters, headers: headers, serializer: clientSerializer).value
    }

    /// Sends a `PATCH` and returns what ``responseSerializer`` makes of the response.
    @discardableResult
    public func patch(_ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:]) async throws(NetworkingError) -> any Sendable {
        try await request(.patch, url, parameters: parameters, headers: headers, serializer: clientSerializer).value
    }

    /// Sends a `DELETE` and returns what ``responseSerializer`` makes of the response.
    @discardableResult
    public func delete(_ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:]) async throws(NetworkingError) -> any Sendable {
        try await request(.delete, url, parameters: parameters, headers: headers, serializer: clientSerializer).value
    }
}
