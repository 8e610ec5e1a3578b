import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `Synchronization.Mutex` whose critical sections ThreadSanitizer can see.
/// The one copy, shared by the library, LoopbackServer, anfetch and the tests (`package` access).
///
/// On Linux `Mutex` is built on raw futex calls inside a module that is not instrumented, so
/// ThreadSanitizer cannot see it synchronise and reports every access it guards as a race (a false
/// positive; confirmed with a two-thread counter). Each critical section here is bracketed with
/// `__tsan_acquire`/`__tsan_release` on the lock's own address. The two functions are looked up
/// once with `dlsym`; outside a `-sanitize=thread` build they do not exist and the cost is a nil
/// check.
package final class SanitizedMutex<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// A lock around `value`.
    package init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { value in
            let address = Unmanaged.passUnretained(self).toOpaque()
            ThreadSanitizer.acquire?(address)
            defer { ThreadSanitizer.release?(address) }
            return body(&value)
        }
    }
}

/// ThreadSanitizer's annotation entry points, present only in sanitized builds.
package enum ThreadSanitizer {
    package typealias Annotation = @convention(c) (UnsafeMutableRawPointer?) -> Void

    package static let acquire: Annotation? = lookup("__tsan_acquire")
    package static let release: Annotation? = lookup("__tsan_release")

    private static func lookup(_ name: String) -> Annotation? {
        #if os(Linux) || os(Android)
        let defaultHandle = UnsafeMutableRawPointer(bitPattern: 0) // RTLD_DEFAULT
        #else
        let defaultHandle = UnsafeMutableRawPointer(bitPattern: -2) // RTLD_DEFAULT on Darwin
        #endif
        return dlsym(defaultHandle, name).map { unsafeBitCast($0, to: Annotation.self) }
    }
}
