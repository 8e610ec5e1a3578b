import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Changes a request before each attempt is sent: adds a header, signs it, swaps the host
/// (Alamofire's `RequestAdapter`).
///
/// Adapters run in order — the client's ``PipelineConfiguration/adapters``, then the request's
/// own, then the client's ``PipelineConfiguration/authenticator`` — before *every* attempt, so a
/// retry is adapted again (a signature or a credential is fresh). They run on the caller's task:
/// cancelling it cancels an adapter that awaits.
public protocol RequestAdapter: Sendable {
    /// Returns the request to send.
    ///
    /// - Throws: anything. A ``NetworkingError`` fails the request as it is; any other error
    ///   becomes ``NetworkingError/Kind/requestAdaptationFailed``. Adaptation failures are not retried.
    func adapt(_ request: URLRequest, context: AdapterContext) async throws -> URLRequest
}

/// What an adapter knows about the attempt it prepares.
public struct AdapterContext: Sendable {
    /// The pipeline request's identifier (the same for every attempt, and in every ``RequestEvent``).
    public let requestID: RequestID
    /// Which attempt this is: 1 for the first.
    public let attempt: Int
    /// The request as built from the ``Request`` value, before any adapter ran.
    public let originalRequest: URLRequest
}

/// An adapter made of a closure.
public struct RequestAdapterClosure: RequestAdapter {
    /// The closure's type.
    public typealias Adapt = @Sendable (_ request: URLRequest, _ context: AdapterContext) async throws -> URLRequest

    private let body: Adapt

    /// An adapter that runs `adapt`.
    public init(_ adapt: @escaping Adapt) { self.body = adapt }

    /// Runs the closure.
    public func adapt(_ request: URLRequest, context: AdapterContext) async throws -> URLRequest {
        try await body(request, context)
    }
}

/// An adapter that sets a header on every attempt (replacing any value it had).
public struct HeaderAdapter: RequestAdapter {
    /// The header's name.
    public let name: String
    /// Its value.
    public let value: String

    /// An adapter that sets `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Sets the header.
    public func adapt(_ request: URLRequest, context: AdapterContext) async throws -> URLRequest {
        var request = request
        request.setValue(value, forHTTPHeaderField: name)
        return request
    }
}

/// Identifies one pipeline request across its attempts (for monitors and logs).
public struct RequestID: Sendable, Hashable, CustomStringConvertible {
    /// A number unique in the process.
    public let rawValue: UInt64

    /// `#` and the number.
    public var description: String { "#\(rawValue)" }

    private static let counter = SanitizedMutex<UInt64>(0)

    static func next() -> RequestID {
        RequestID(rawValue: counter.withLock { value in
            value += 1
            return value
        })
    }
}
