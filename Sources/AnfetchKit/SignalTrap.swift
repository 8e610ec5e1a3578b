import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C as an event: a `DispatchSource` signal source for `SIGINT` (the default action is
/// ignored while the trap exists). The first Ctrl-C calls `onInterrupt` (stop cleanly); a second
/// one calls `onSecondInterrupt` (the caller exits at once).
public final class SignalTrap {
    private let source: any DispatchSourceSignal
    private let count = SanitizedMutex(0)

    /// Installs the trap.
    public init(onInterrupt: @escaping @Sendable () -> Void, onSecondInterrupt: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let count = count
        source.setEventHandler {
            let seen = count.withLock { value in
                value += 1
                return value
            }
            if seen == 1 { onInterrupt() } else { onSecondInterrupt() }
        }
        source.resume()
    }

    /// Removes the trap and restores the default action.
    public func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
