import Foundation

/// Which open connections a ``ServerTrustEvaluator`` accepted (pure; owned by the curl loop
/// thread). A connection is named by its two endpoints, as `CURLOPT_PREREQFUNCTION` reports them:
/// no two live TCP connections share both, so a reused connection finds its own record.
///
/// A record outliving its connection is harmless: a new connection on the same endpoints makes a
/// new TLS handshake, which is judged afresh and replaces the record. Past ``capacity`` records
/// every record is dropped: a reused connection without one is never trusted, only replaced by a
/// new connection (judged afresh), so forgetting costs a handshake, never a check.
struct CurlTrustApprovals: Sendable, Hashable {
    /// The two endpoints of a connection.
    struct Connection: Sendable, Hashable {
        var localAddress: String
        var localPort: Int
        var remoteAddress: String
        var remotePort: Int
    }

    private struct Approval: Sendable, Hashable {
        var evaluator: UInt64
        var host: String
    }

    /// The most records kept. Default 1024.
    var capacity = 1024
    private var approvals: [Connection: Approval] = [:]

    /// The number of records.
    var count: Int { approvals.count }

    /// Records that `evaluator` accepted `connection` for `host` (replacing any older record).
    mutating func record(_ connection: Connection, evaluator: UInt64, host: String) {
        if approvals[connection] == nil, approvals.count >= capacity { approvals.removeAll() }
        approvals[connection] = Approval(evaluator: evaluator, host: SecurityPolicyTable.normalized(host))
    }

    /// Forgets what was recorded for `connection` (it was rejected, or is being replaced).
    mutating func forget(_ connection: Connection) {
        approvals[connection] = nil
    }

    /// Whether `evaluator` accepted `connection` for `host`.
    func approves(_ connection: Connection, evaluator: UInt64, host: String) -> Bool {
        approvals[connection] == Approval(evaluator: evaluator, host: SecurityPolicyTable.normalized(host))
    }
}
