import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionManager {
    /// What answers a stubbed manager's requests (see ``init(stubs:configuration:maxConcurrentTransfers:transport:)``).
    public enum StubbedTransport: Sendable, Hashable {
        /// The default: an in-process transport that reports the stub's head, body and completion
        /// to the Session layer as curl reports a server's, so the same code runs as in production
        /// on Linux — redirects followed by the manager's rules (credential headers dropped on a
        /// change of origin, a 307/308 re-sending the body, `.httpTooManyRedirects`), HTTP Basic
        /// challenges answered from ``setCredential(_:forHost:)`` or the challenge hook, limits,
        /// progress, cancellation. Each attempt (a followed redirect, a retry with a credential)
        /// is answered by the registry and recorded.
        case stubs
        /// URLSession with a `URLProtocol` in front of the network: URLSession's own behaviour, as
        /// before the stubs transport. A redirect is returned as it is (not followed) and no
        /// authentication challenge is issued.
        case urlSession
    }

    /// Creates a manager whose requests never leave the process: each is answered by `stubs`
    /// (see ``HTTPStubs``), for unit tests of code that takes a manager or an ``HTTPClient``.
    ///
    /// The manager runs on the stubs transport (``StubbedTransport/stubs``): everything above
    /// the wire is the production code of the curl transport — events, redirect and challenge
    /// rules, credential scope, cancellation, limits, serializers and errors. To run on URLSession
    /// with a `URLProtocol` instead, use ``init(stubs:configuration:maxConcurrentTransfers:transport:)``.
    ///
    /// - Parameters:
    ///   - stubs: answers every request; kept alive by the caller (a released registry answers
    ///     nothing: requests fail with ``NetworkingError/Kind/unmatchedStub``).
    ///   - configuration: default ``defaultConfiguration()``. Its `httpAdditionalHeaders` are
    ///     merged into each request (and recorded).
    ///   - maxConcurrentTransfers: default `nil` (no limit).
    public init(
        stubs: HTTPStubs,
        configuration: URLSessionConfiguration = SessionManager.defaultConfiguration(),
        maxConcurrentTransfers: Int? = nil
    ) {
        self.init(stubs: stubs, configuration: configuration, maxConcurrentTransfers: maxConcurrentTransfers, transport: .stubs)
    }

    /// Creates a manager whose requests are answered by `stubs`, on the chosen `transport`.
    ///
    /// - Parameters:
    ///   - stubs: answers every request; kept alive by the caller (a released registry answers
    ///     nothing: requests fail with ``NetworkingError/Kind/unmatchedStub``).
    ///   - configuration: default ``defaultConfiguration()``. With ``StubbedTransport/urlSession``
    ///     its `protocolClasses` are replaced.
    ///   - maxConcurrentTransfers: default `nil` (no limit).
    ///   - transport: ``StubbedTransport/stubs`` (the Session layer's rules, as on curl) or
    ///     ``StubbedTransport/urlSession`` (URLSession's own behaviour through a `URLProtocol`).
    public init(
        stubs: HTTPStubs,
        configuration: URLSessionConfiguration = SessionManager.defaultConfiguration(),
        maxConcurrentTransfers: Int? = nil,
        transport: StubbedTransport
    ) {
        switch transport {
        case .stubs:
            self.init(
                configuration: configuration, maxConcurrentTransfers: maxConcurrentTransfers, transport: .urlSession,
                securityPolicy: .default, stubs: StubTransport(stubs: stubs)
            )
        case .urlSession:
            configuration.protocolClasses = [StubURLProtocol.self]
            self.init(configuration: configuration, maxConcurrentTransfers: maxConcurrentTransfers, transport: .urlSession)
            stubs.register()
            underlyingSession.sessionDescription = stubs.sessionDescription
        }
    }
}
