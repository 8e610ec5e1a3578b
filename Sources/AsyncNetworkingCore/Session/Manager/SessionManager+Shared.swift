import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The process-wide manager (URLSession's `URLSession.shared`).
extension SessionManager {
    /// The manager every ``HTTPClient`` made without one runs on, shared by the whole process.
    ///
    /// It is created on first use, once (a `static let`: safe from any thread), with the defaults
    /// of ``init(configuration:maxConcurrentTransfers:transport:securityPolicy:http2:)``:
    /// ``defaultConfiguration()`` (no URL cache, no cookies, no credential storage, a 60 s idle
    /// timeout, 6 connections per host), no concurrency limit, ``SecurityPolicy/default``,
    /// ``HTTP2Options/default``, the proxy from the environment and ``Transport/platformDefault``
    /// — read at that first use, so on Linux `ASYNCNETWORKING_TRANSPORT=urlsession` makes it a
    /// URLSession manager. On curl it is one loop thread for the whole process, however many
    /// clients use it; connections are reused across them.
    ///
    /// It lives as long as the process: ``invalidate()`` and ``invalidateAndCancel()`` do nothing
    /// on it and return at once, as `finishTasksAndInvalidate()` and `invalidateAndCancel()` do on
    /// `URLSession.shared`, so no user can end it for the others. ``isActive`` stays `true`.
    ///
    /// What is set on it is set for everyone in the process, libraries included: hooks,
    /// credentials, a proxy, security policies, the concurrency limit, and ``cancelAll(kind:)``
    /// cancels every user's transfers. Make a manager of your own for any of those — a different
    /// configuration, a security policy (a private CA, pins, a client certificate), a cookie jar,
    /// hooks or credentials, limits and activity counted apart, stubs in tests, or a shutdown of
    /// its own (see <doc:SessionsAndEvents>).
    public static let shared = SessionManager(
        configuration: SessionManager.defaultConfiguration(), maxConcurrentTransfers: nil,
        transport: .platformDefault, securityPolicy: .default, stubs: nil, isShared: true
    )
}
