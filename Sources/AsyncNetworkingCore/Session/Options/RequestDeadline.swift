import Foundation

/// A total limit on a call: how long it may take from its start, or the instant it must end by
/// (AsyncHTTPClient's `deadline`, URLSession's `timeoutIntervalForResource`).
///
/// ```swift
/// client.deadline = .after(.seconds(10))                              // every call of the client
/// let user = try await client.send(.get("users/42", as: User.self).deadline(.at(incoming.deadline)))
/// var options = TransferOptions(); options.deadline = .after(.seconds(30)) // a manager call
/// ```
///
/// The deadline covers the whole call: waiting for a slot, connecting, redirects, credential
/// retries, the retry policy's retries and their waits, and reading the body. When it passes,
/// the attempt or wait running then is stopped and the call fails with
/// ``NetworkingError/Kind/deadlineExceeded``; a retry that could not start before it is not
/// made (the last failure is returned). It is distinct from the idle timeout
/// (`URLRequest.timeoutInterval`, ``HTTPClient/timeoutInterval``), which bounds each wait for
/// data and fails an attempt with ``NetworkingError/Kind/transport(_:)`` `.timedOut`.
///
/// A relative deadline (``after(_:)``) starts when the call starts: each call of a client whose
/// ``HTTPClient/deadline`` is `.after(.seconds(10))` gets its own 10 s. A negative or zero
/// duration, or an instant already past, fails the call before anything is sent; a duration
/// longer than 100 years is taken as 100 years (never a trap).
public struct RequestDeadline: Sendable, Hashable, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        case after(Duration)
        case at(ContinuousClock.Instant)
    }

    private let storage: Storage

    /// A deadline `duration` after the call starts.
    public static func after(_ duration: Duration) -> RequestDeadline {
        RequestDeadline(storage: .after(min(duration, SafeTime.ceiling)))
    }

    /// A deadline at `instant` (of `ContinuousClock`, which keeps counting while the system sleeps).
    public static func at(_ instant: ContinuousClock.Instant) -> RequestDeadline {
        RequestDeadline(storage: .at(instant))
    }

    /// The instant this deadline falls on for a call that started at `start` (``at(_:)``'s
    /// instant as it is).
    public func instant(startingAt start: ContinuousClock.Instant) -> ContinuousClock.Instant {
        switch storage {
        case .after(let duration): start.advanced(by: duration)
        case .at(let instant): instant
        }
    }

    /// `after 10.0 s`, or `at` and the time left (negative when past).
    public var description: String {
        switch storage {
        case .after(let duration): "after \(SafeTime.seconds(duration)) s"
        case .at(let instant): "at an instant \(SafeTime.seconds(instant - .now)) s from now"
        }
    }

    /// How the deadline reads in an error message: `10.0 s` (a relative one), or `an instant`.
    package var phrase: String {
        switch storage {
        case .after(let duration): "\(SafeTime.seconds(duration)) s"
        case .at: "the instant given"
        }
    }

    /// The earlier of two optional instants.
    package static func earliest(_ a: ContinuousClock.Instant?, _ b: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
        switch (a, b) {
        case (let a?, let b?): min(a, b)
        case (let a?, nil): a
        case (nil, let b): b
        }
    }
}
