/// The arithmetic behind ``BatchProgress``, as a pure value: per-member progress in, aggregate
/// out. Every update costs O(1) (totals are adjusted by the member's change), so a batch of
/// thousands of members reporting on every chunk stays cheap.
struct BatchProgressState {
    /// What one member has reported.
    struct Member {
        var sent: Int64 = 0
        var expectedSent: Int64?
        var sendsBody = false
        var received: Int64 = 0
        var expectedReceived: Int64?
        var hasResponse = false
        var isFinished = false

        /// The member's part of the totals.
        var contribution: Contribution {
            var part = Contribution()
            if sendsBody {
                part.sent = Int128(sent)
                if let expectedSent { part.expectedSent = Int128(expectedSent) } else { part.unknownSent = 1 }
            }
            if isFinished {
                part.received = Int128(received)
                part.expectedReceived = Int128(received)
                part.fraction = 1
            } else {
                if hasResponse {
                    part.received = Int128(received)
                    if let expectedReceived { part.expectedReceived = Int128(expectedReceived) } else { part.unknownReceived = 1 }
                }
                // In Double: an expected size is a server's Content-Length, up to Int64.max each.
                let known = Double(sendsBody ? expectedSent ?? 0 : 0) + Double(hasResponse ? expectedReceived ?? 0 : 0)
                let done = Double(sendsBody && expectedSent != nil ? sent : 0) + Double(hasResponse && expectedReceived != nil ? received : 0)
                part.fraction = known > 0 ? min(1, done / known) : 0
            }
            return part
        }
    }

    /// Sums over members; a member's part is subtracted before it changes and added back after.
    /// Byte sums are 128-bit: each term may be a server's `Content-Length` (up to Int64.max), and
    /// no number of them can overflow; ``snapshot`` clamps them to Int64.
    struct Contribution {
        var sent: Int128 = 0
        var expectedSent: Int128 = 0
        var unknownSent = 0
        var received: Int128 = 0
        var expectedReceived: Int128 = 0
        var unknownReceived = 0
        var fraction: Double = 0

        mutating func add(_ other: Contribution, sign: Int) {
            sent += Int128(sign) * other.sent
            expectedSent += Int128(sign) * other.expectedSent
            unknownSent += sign * other.unknownSent
            received += Int128(sign) * other.received
            expectedReceived += Int128(sign) * other.expectedReceived
            unknownReceived += sign * other.unknownReceived
            fraction += Double(sign) * other.fraction
        }
    }

    private var members: [Member]
    private var totals = Contribution()
    private var finishedCount = 0
    private var failedCount = 0

    init(count: Int) {
        members = Array(repeating: Member(), count: count)
    }

    /// Request body bytes sent by member `index` so far.
    mutating func upload(_ index: Int, _ progress: TransferProgress) {
        update(index) { member in
            member.sendsBody = true
            member.sent = max(member.sent, progress.completedBytes)
            member.expectedSent = progress.expectedBytes
        }
    }

    /// Member `index` received its response, with a body of `expectedBytes` (`nil`: unknown).
    mutating func response(_ index: Int, expectedBytes: Int64?) {
        update(index) { member in
            member.hasResponse = true
            member.received = 0
            member.expectedReceived = expectedBytes
        }
    }

    /// Response body bytes received by member `index` so far.
    mutating func download(_ index: Int, _ progress: TransferProgress) {
        update(index) { member in
            member.hasResponse = true
            member.received = max(member.received, progress.completedBytes)
            if let expected = progress.expectedBytes { member.expectedReceived = expected }
        }
    }

    /// Member `index` ended. Byte counts, when given, are the final ones (from its metrics); its
    /// expected sizes become what it actually transferred.
    mutating func finish(_ index: Int, failed: Bool, sent: Int64? = nil, received: Int64? = nil) {
        guard !members[index].isFinished else { return }
        update(index) { member in
            member.isFinished = true
            if let sent, sent > 0 || member.sendsBody {
                member.sendsBody = true
                member.sent = sent
            }
            if member.sendsBody { member.expectedSent = member.sent }
            if let received { member.received = received }
        }
        finishedCount += 1
        if failed { failedCount += 1 }
    }

    /// The aggregate now.
    var snapshot: BatchProgress {
        let total = members.count
        let fraction: Double = if finishedCount == total {
            1
        } else {
            min(1, max(0, totals.fraction / Double(total)))
        }
        return BatchProgress(
            totalCount: total,
            finishedCount: finishedCount,
            failedCount: failedCount,
            download: TransferProgress(
                completedBytes: Int64(clamping: totals.received),
                expectedBytes: totals.unknownReceived > 0 ? nil : Int64(clamping: totals.expectedReceived)
            ),
            upload: TransferProgress(
                completedBytes: Int64(clamping: totals.sent),
                expectedBytes: totals.unknownSent > 0 ? nil : Int64(clamping: totals.expectedSent)
            ),
            fractionCompleted: fraction
        )
    }

    private mutating func update(_ index: Int, _ change: (inout Member) -> Void) {
        guard members.indices.contains(index), !members[index].isFinished else { return }
        totals.add(members[index].contribution, sign: -1)
        change(&members[index])
        totals.add(members[index].contribution, sign: 1)
    }
}
