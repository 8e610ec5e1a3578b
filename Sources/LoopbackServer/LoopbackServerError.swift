/// Why a ``LoopbackServer`` could not start.
public enum LoopbackServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `socket()` failed with this `errno`.
    case socketFailed(errno: Int32)
    /// `bind()` to 127.0.0.1 port 0 failed with this `errno`.
    case bindFailed(errno: Int32)
    /// `listen()` failed with this `errno`.
    case listenFailed(errno: Int32)
    /// `getsockname()` failed with this `errno`.
    case getsocknameFailed(errno: Int32)
    /// `pipe()` (for the stop signal) failed with this `errno`.
    case pipeFailed(errno: Int32)

    /// A one-line description naming the failed call and the `errno`.
    public var description: String {
        switch self {
        case .socketFailed(let code): "LoopbackServer: socket() failed, errno \(code)"
        case .bindFailed(let code): "LoopbackServer: bind(127.0.0.1:0) failed, errno \(code)"
        case .listenFailed(let code): "LoopbackServer: listen() failed, errno \(code)"
        case .getsocknameFailed(let code): "LoopbackServer: getsockname() failed, errno \(code)"
        case .pipeFailed(let code): "LoopbackServer: pipe() failed, errno \(code)"
        }
    }
}
