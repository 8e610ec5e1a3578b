import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionManager {
    /// Which engine moves a manager's bytes. Nothing else a user writes changes with it: events,
    /// awaits, batches, downloads, uploads and the HTTP layer behave the same on both.
    public enum Transport: Sendable, Hashable {
        /// libcurl's multi interface, driven by a thread of the manager's own (Linux only):
        /// per-transfer flow control, no process-wide work queue. `libcurl.so.4` is loaded at
        /// first use — it is the library FoundationNetworking links, so it is present wherever
        /// Swift runs on Linux. If it cannot be loaded, every transfer fails with
        /// ``NetworkingError/Kind/transportUnavailable``, naming the library.
        case curl
        /// `URLSession` (FoundationNetworking on Linux): the default on Apple platforms.
        case urlSession
        /// ``curl`` when libcurl loads, else ``urlSession``.
        case curlOrURLSession

        /// ``curl`` on Linux, ``urlSession`` elsewhere. On Linux the environment variable
        /// `ASYNCNETWORKING_TRANSPORT=urlsession` selects URLSession instead (`curl` selects curl).
        public static var platformDefault: Transport {
            #if os(Linux)
            switch ProcessInfo.processInfo.environment["ASYNCNETWORKING_TRANSPORT"]?.lowercased() {
            case "urlsession": return .urlSession
            default: return .curl
            }
            #else
            return .urlSession
            #endif
        }
    }

    /// The transport this manager runs on (``Transport/curlOrURLSession`` resolved).
    ///
    /// A manager made with ``init(stubs:configuration:maxConcurrentTransfers:transport:)`` reports
    /// ``urlSession`` whichever ``StubbedTransport`` answers it (stubs move no bytes: the enum has no
    /// case for them, so existing exhaustive `switch`es keep compiling).
    public nonisolated var transport: Transport {
        #if os(Linux) && canImport(CCurlShim)
        if case .curl = engine { return .curl }
        if case .curlUnavailable = engine { return .curl }
        #endif
        return .urlSession
    }
}

/// The engine a manager resolved its ``SessionManager/Transport`` to.
enum TransportEngine: Sendable {
    case urlSession
    /// In-process answers from an ``HTTPStubs`` registry (``StubTransport``), through the same
    /// Session-layer rules as curl.
    case stubs(StubTransport)
    #if os(Linux) && canImport(CCurlShim)
    case curl(CurlSessionTransport)
    /// Curl was asked for and libcurl could not be loaded: transfers fail with this message.
    case curlUnavailable(String)
    #endif

    /// Whether the transport checks response heads against RFC 9110/9112 itself, line by line
    /// (curl), or builds only heads that pass those rules (stubs: a stub whose status or fields
    /// break them fails with `.badServerResponse`); URLSession's parsed fields are checked by the
    /// Session layer.
    var checksResponseHeads: Bool {
        if case .urlSession = self { return false }
        return true
    }

    /// Whether the transport follows redirects and raises authentication challenges itself
    /// (URLSession, through its delegate); curl and stubs report every head, and the Session layer
    /// decides (the transfer's state machine).
    var followsRedirects: Bool {
        if case .urlSession = self { return true }
        return false
    }

    /// Whether an `AsyncSequence` body can be sent as it is produced (curl's body pipe): elsewhere
    /// it is spooled to a file first.
    var streamsSequenceBodies: Bool {
        #if os(Linux) && canImport(CCurlShim)
        if case .curl = self { return true }
        #endif
        return false
    }
}

/// Hands curl's batches to a manager created after the transport (the loop exists first). The
/// weak reference is set once in `SessionManager.init` and read by the loop thread per batch.
final class CurlEventRelay: Sendable {
    private struct WeakManager: Sendable { weak var manager: SessionManager? }
    private let state = SanitizedMutex(WeakManager())

    /// The manager, while it lives.
    var manager: SessionManager? {
        get { state.withLock { $0.manager } }
        set { state.withLock { $0.manager = newValue } }
    }
}
