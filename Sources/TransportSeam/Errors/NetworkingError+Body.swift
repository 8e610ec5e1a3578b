import Foundation

/// Reading a server's error payload from a failure.
extension NetworkingError {
    /// Decodes ``body`` (a server's error JSON, for example) as `type`.
    ///
    /// ```swift
    /// catch let error as NetworkingError {
    ///     let problem = try? error.decodeBody(as: Problem.self)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: the type to decode. Default: inferred.
    ///   - decoder: the decoder. Default: a new `JSONDecoder`.
    /// - Throws: ``NetworkingError/Kind/responseSerializationFailed`` when there is no body or it
    ///   does not decode (the `DecodingError` is the ``underlyingError``).
    public func decodeBody<T: Decodable>(as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws(NetworkingError) -> T {
        guard let body, !body.isEmpty else {
            throw NetworkingError(.responseSerializationFailed, "the error has no body to decode", request: request, response: response)
        }
        do {
            return try decoder.decode(type, from: body)
        } catch {
            throw NetworkingError(
                .responseSerializationFailed, "the error body could not be decoded as \(type)",
                request: request, response: response, body: body, underlyingError: error
            )
        }
    }

    /// ``body`` as UTF-8 text (invalid bytes replaced), or `nil` when there is no body.
    public var bodyText: String? {
        body.map { String(decoding: $0, as: UTF8.self) }
    }
}
