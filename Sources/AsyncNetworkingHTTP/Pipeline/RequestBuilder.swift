import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a ``Request`` value into the `URLRequest` its first attempt starts from (pure).
struct RequestBuilder {
    /// Already normalized (see ``HTTPClient/normalizedBaseURL(_:)``).
    var baseURL: URL?
    var defaultHeaders: HTTPHeaders
    /// As sent (whole seconds on Linux).
    var timeoutInterval: TimeInterval
    var cachePolicy: URLRequest.CachePolicy

    func build<Value>(_ request: Request<Value>) throws(NetworkingError) -> URLRequest {
        var url = try request.target.resolved(against: baseURL)
        if !request.query.isEmpty {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
                throw NetworkingError(.invalidURL, "the query could not be added to \(Redaction.url(url))")
            }
            components.percentEncodedQueryItems = (components.percentEncodedQueryItems ?? []) + request.query.map {
                URLQueryItem(name: URLEncoding.percentEscaped($0.name), value: $0.value.map(URLEncoding.percentEscaped))
            }
            guard let extended = components.url else {
                throw NetworkingError(.invalidURL, "the query could not be added to \(Redaction.url(url))")
            }
            url = extended
        }
        try RequestValidation.validate(url)
        var built = URLRequest(url: url)
        built.httpMethod = request.method.rawValue
        built.cachePolicy = cachePolicy
        built.timeoutInterval = timeoutInterval
        for header in defaultHeaders where !request.headers.contains(name: header.name) {
            built.setValue(header.value, forHTTPHeaderField: header.name)
        }
        for header in request.headers { built.setValue(header.value, forHTTPHeaderField: header.name) }
        switch request.body {
        case .none:
            break
        case .data(let data, let contentType):
            built.httpBody = data
            if let contentType, built.value(forHTTPHeaderField: "Content-Type") == nil {
                built.setValue(contentType, forHTTPHeaderField: "Content-Type")
            }
        case .invalid(let message):
            throw NetworkingError(.requestSerializationFailed, message, request: built)
        }
        return built
    }
}
