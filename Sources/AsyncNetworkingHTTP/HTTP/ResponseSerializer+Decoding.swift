import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body decoding the JSON and property-list serializers share: a blank body becomes the type's
/// empty value where that is allowed, and a decoder failure becomes a serialization error.
extension ResponseSerializer {
    /// Decodes JSON, handling empty bodies per `validation` (and always for ``Empty``).
    func decodeJSON<Value: Decodable>(
        _ type: Value.Type, from data: Data, decoder: JSONDecoder, validation: ResponseValidation,
        response: HTTPURLResponse, request: URLRequest?
    ) throws(NetworkingError) -> Value {
        let blank = data.isEmpty || data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
        return try decodeBody(
            type, from: data, blank: blank, describedAs: "\(type)",
            validation: validation, response: response, request: request
        ) { data in try decoder.decode(type, from: data) }
    }

    /// Decodes `data` with `decode`. A `blank` body is `type`'s empty value when `type` is ``Empty``
    /// or `validation` allows an empty body here, else an error carrying the (non-empty) body; a
    /// `decode` failure is ``NetworkingError/Kind/responseSerializationFailed`` with the body and the
    /// decoder's error, saying the body could not be decoded as `description`.
    func decodeBody<Value>(
        _ type: Value.Type, from data: Data, blank: Bool, describedAs description: String,
        validation: ResponseValidation, response: HTTPURLResponse, request: URLRequest?,
        _ decode: (Data) throws -> Value
    ) throws(NetworkingError) -> Value {
        if blank {
            if type == Empty.self || validation.allowsEmptyBody(response: response, request: request),
               let empty = Self.emptyValue(of: type) {
                return empty
            }
            throw Self.emptyBodyError("\(type)", response: response, request: request).adding(body: data.isEmpty ? nil : data)
        }
        do {
            return try decode(data)
        } catch {
            throw NetworkingError(
                .responseSerializationFailed, "the body could not be decoded as \(description)",
                request: request, response: response, body: data, underlyingError: error
            )
        }
    }
}
