import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionManager {
    /// Creates a manager whose requests never leave the process: each is answered by `stubs`
    /// (see ``HTTPStubs``), for unit tests of code that takes a manager or an ``HTTPClient``.
    ///
    /// The manager runs on the URLSession transport with a `URLProtocol` in front of the network,
    /// so its events, cancellation, limits, serializers and errors behave as in production. The
    /// `configuration`'s `protocolClasses` are replaced.
    ///
    /// - Parameters:
    ///   - stubs: answers every request; kept alive by the caller (a released registry answers
    ///     nothing).
    ///   - configuration: default ``defaultConfiguration()``.
    ///   - maxConcurrentTransfers: default `nil` (no limit).
    public init(
        stubs: HTTPStubs,
        configuration: URLSessionConfiguration = SessionManager.defaultConfiguration(),
        maxConcurrentTransfers: Int? = nil
    ) {
        configuration.protocolClasses = [StubURLProtocol.self]
        self.init(configuration: configuration, maxConcurrentTransfers: maxConcurrentTransfers, transport: .urlSession)
        stubs.register()
        session.sessionDescription = stubs.sessionDescription
    }
}
