import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPClient {
    /// A Server-Sent Events stream of a GET built like every other request of this client (base
    /// URL, ``defaultHeaders``, ``timeoutInterval``, parameters in the query), which reconnects
    /// after a drop. See ``EventSource``.
    ///
    /// ```swift
    /// for try await event in try client.events("feed", parameters: ["topic": "builds"]) {
    ///     print(event.data)
    /// }
    /// ```
    ///
    /// Nothing is sent until the loop asks for the first event; cancelling the iterating task ends
    /// the loop. ``timeoutInterval`` bounds the wait for the next bytes of the stream: a server
    /// that stays silent longer is treated as a dropped connection (so send comments as heartbeats).
    ///
    /// - Parameter configuration: reconnection and limits. Default: ``EventSource/Configuration/default``
    ///   with this client's ``transferOptions`` without their ``TransferOptions/deadline`` (a stream
    ///   that reconnects has no end to bound; ``deadline`` applies to the client's other calls).
    /// - Throws: request building errors (see ``makeRequest(_:_:parameters:headers:)``), at once.
    public func events(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        configuration: EventSource.Configuration? = nil
    ) throws(NetworkingError) -> EventSource {
        let request = try makeRequest(.get, url, parameters: parameters, headers: headers)
        var options = transferOptions
        options.deadline = nil
        return EventSource(
            manager: manager, request: request, configuration: configuration ?? EventSource.Configuration(transferOptions: options)
        )
    }
}
