@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

@Suite("TransferScheduler state machine")
struct TransferSchedulerTests {
    private func id(_ n: UInt64) -> TransferID { TransferID(rawValue: n) }

    /// Admits transfer `n` and returns whether it may start now.
    private func admit(_ scheduler: inout TransferScheduler, _ n: UInt64, _ priority: TransferPriority = .normal) -> Bool {
        scheduler.admit(id(n), priority: priority)
    }

    @Test func unlimitedAdmitsEverything() {
        var scheduler = TransferScheduler(limit: nil)
        var admitted = 0
        for n in 1...100 where admit(&scheduler, UInt64(n)) { admitted += 1 }
        #expect(admitted == 100)
        #expect(scheduler.running == 100)
        #expect(scheduler.waitingCount == 0)
    }

    @Test func limitQueuesAndStartsByPriorityThenFIFO() {
        var scheduler = TransferScheduler(limit: 1)
        let decisions = [
            admit(&scheduler, 1, .normal), admit(&scheduler, 2, .low), admit(&scheduler, 3, .normal),
            admit(&scheduler, 4, .high), admit(&scheduler, 5, .normal), admit(&scheduler, 6, .high),
        ]
        #expect(decisions == [true, false, false, false, false, false])
        #expect(scheduler.waitingCount == 5)
        var order: [UInt64] = []
        while scheduler.running > 0 {
            let started = scheduler.didFinishRunning()
            #expect(started.count <= 1)
            order += started.map(\.rawValue)
        }
        #expect(order == [4, 6, 3, 5, 2])
        #expect(scheduler.maxRunning == 1)
    }

    @Test func removedWaitingTransferNeverStarts() {
        var scheduler = TransferScheduler(limit: 1)
        _ = admit(&scheduler, 1)
        _ = admit(&scheduler, 2)
        _ = admit(&scheduler, 3)
        let removed = scheduler.removeWaiting(id(2))
        let removedAgain = scheduler.removeWaiting(id(2))
        #expect(removed)
        #expect(!removedAgain)
        let started = scheduler.didFinishRunning()
        #expect(started == [id(3)])
    }

    @Test func raisingTheLimitStartsWaitingTransfers() {
        var scheduler = TransferScheduler(limit: 1)
        _ = admit(&scheduler, 1)
        _ = admit(&scheduler, 2)
        _ = admit(&scheduler, 3)
        let started = scheduler.setLimit(3)
        #expect(started == [id(2), id(3)])
        #expect(scheduler.running == 3)
    }
}
