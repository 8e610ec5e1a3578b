import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C (and `SIGTERM`) as an event: a `DispatchSource` signal source per signal (their default
/// actions are ignored while the trap exists). The first signal calls `onInterrupt` (stop cleanly);
/// a second one calls `onSecondInterrupt` (the caller exits at once).
///
/// Not `Sendable`: it is made, kept and cancelled by one task.
public final class SignalTrap {
    private static let signals = [SIGINT, SIGTERM]
    private let sources: [any DispatchSourceSignal]

    /// Installs the trap.
    public init(onInterrupt: @escaping @Sendable () -> Void, onSecondInterrupt: @escaping @Sendable () -> Void) {
        let count = SanitizedMutex(0)
        sources = Self.signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let seen = count.withLock { value in
                    value += 1
                    return value
                }
                if seen == 1 { onInterrupt() } else { onSecondInterrupt() }
            }
            source.resume()
            return source
        }
    }

    /// Removes the trap and restores the default actions.
    public func cancel() {
        for source in sources { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}
