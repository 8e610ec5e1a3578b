import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A manager's coalescers, one per front door (their results differ in kind): the manager's
/// ``SessionManager/data(for:options:)`` and ``HTTPClient``'s calls. Shared by every client of the
/// manager, so copies of a client coalesce together.
package final class Coalescers: Sendable {
    let data = RequestCoalescer<(Data, HTTPURLResponse)>()
    /// The client's: the result carries the shared transfer's completion hold, which each caller's
    /// own hold settles (the session event carries what a caller saw).
    package let exchange = RequestCoalescer<(Data, HTTPURLResponse, TransferMetrics, CompletionHold)>()

    /// Operations started and callers served over both doors.
    var counts: (operations: Int, callers: Int) {
        let (a, b) = (data.counts, exchange.counts)
        return (a.operations + b.operations, a.callers + b.callers)
    }

    /// Callers waiting now, over both doors.
    var waiting: Int { data.waiting + exchange.waiting }
}
