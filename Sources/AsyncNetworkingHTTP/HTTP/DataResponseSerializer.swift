import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Returns the body as it arrived, after validation (AFNetworking's `AFHTTPResponseSerializer`).
/// An empty body is empty `Data`, never an error.
public struct DataResponseSerializer: ValidatingResponseSerializer, Hashable {
    /// The checks made first. Default: status `200..<300`, any content type.
    public var validation: ResponseValidation

    /// Creates a serializer. Default validation: status `200..<300`, any content type.
    public init(validation: ResponseValidation = ResponseValidation()) {
        self.validation = validation
    }

    /// Validates and returns `data`.
    public func serialize(_ data: Data, response: HTTPURLResponse, request: URLRequest?) throws(NetworkingError) -> Data {
        try validation.validate(data, response: response, request: request)
        return data
    }
}
