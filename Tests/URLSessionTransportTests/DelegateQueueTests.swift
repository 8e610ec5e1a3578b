#if canImport(FoundationNetworking)
import Dispatch
import FoundationNetworking
@testable import URLSessionTransport
@testable import AsyncNetworkingTestSupport

/// The delegate queue's backpressure gate, driven directly (no URLSession): the thread adding
/// callbacks waits past the high-water mark until the queue drains, a bypass opens the gate, and
/// no wait lasts longer than the maximum.
@Suite("DelegateQueue backpressure")
struct DelegateQueueTests {
    /// Adds `count` callbacks from a thread of its own; returns how many calls have returned.
    private func addFromAnotherThread(_ queue: DelegateQueue, count: Int) -> SanitizedMutex<Int> {
        let added = SanitizedMutex(0)
        Thread.detachNewThread {
            for _ in 0..<count {
                queue.addOperation {}
                added.withLock { $0 += 1 }
            }
        }
        return added
    }

    @Test func addingWaitsPastTheHighWaterMarkUntilTheQueueDrains() async throws {
        let underlying = DispatchQueue(label: "test.delegate")
        let queue = DelegateQueue(underlyingQueue: underlying, highWater: 4, lowWater: 1, maximumWait: .seconds(600), scope: .init()) // never, in a test
        underlying.suspend() // nothing drains
        let added = addFromAnotherThread(queue, count: 6)
        #expect(await eventually { added.withLock { $0 } == 4 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(added.withLock { $0 } == 4, "the fifth add waits while four are queued")
        underlying.resume()
        #expect(await eventually { added.withLock { $0 } == 6 })
        #expect(await eventually { queue.queuedCallbacks == 0 })
    }

    @Test func aBypassOpensTheGate() async throws {
        let underlying = DispatchQueue(label: "test.delegate")
        let queue = DelegateQueue(underlyingQueue: underlying, highWater: 2, lowWater: 0, maximumWait: .seconds(600), scope: .init()) // never, in a test
        underlying.suspend()
        let added = addFromAnotherThread(queue, count: 3)
        #expect(await eventually { added.withLock { $0 } == 2 })
        // What the manager does around URLSession calls that wait for URLSession's thread.
        queue.bypassing {
            let deadline = Date().addingTimeInterval(hangDeadline)
            while added.withLock({ $0 }) < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(added.withLock { $0 } == 3, "the waiting add went on during the bypass")
        underlying.resume()
    }

    /// URLSession's work thread is one for the whole process: a call into URLSession by another
    /// manager (another delegate queue) must open this gate too, or it waits behind this queue's
    /// slow reader (failed before: the bypass opened only its own queue's gate).
    @Test func aBypassOnAnotherQueueOpensTheGate() async throws {
        let underlying = DispatchQueue(label: "test.delegate.slow")
        let process = DelegateQueue.BypassScope() // this test's own "process": no other test's bypass
        let slow = DelegateQueue(underlyingQueue: underlying, highWater: 2, lowWater: 0, maximumWait: .seconds(600), scope: process) // never, in a test
        let other = DelegateQueue(underlyingQueue: DispatchQueue(label: "test.delegate.other"), scope: process)
        underlying.suspend()
        let added = addFromAnotherThread(slow, count: 3)
        #expect(await eventually { added.withLock { $0 } == 2 })
        other.bypassing {
            let deadline = Date().addingTimeInterval(hangDeadline)
            while added.withLock({ $0 }) < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(added.withLock { $0 } == 3, "the waiting add went on during another queue's bypass")
        underlying.resume()
    }

    @Test func noWaitOutlastsTheMaximum() async throws {
        let underlying = DispatchQueue(label: "test.delegate")
        let queue = DelegateQueue(underlyingQueue: underlying, highWater: 1, lowWater: 0, maximumWait: .milliseconds(100), scope: .init())
        underlying.suspend()
        let start = ContinuousClock.now
        let added = addFromAnotherThread(queue, count: 4)
        #expect(await eventually { added.withLock { $0 } == 4 })
        #expect(ContinuousClock.now - start >= .milliseconds(250), "three adds waited about 100 ms each")
        underlying.resume()
    }

    @Test func callbacksRunInOrderOneAtATime() async throws {
        let underlying = DispatchQueue(label: "test.delegate")
        let queue = DelegateQueue(underlyingQueue: underlying)
        let order = SanitizedMutex<[Int]>([])
        for i in 0..<500 { queue.addOperation { order.withLock { $0.append(i) } } }
        #expect(await eventually { order.withLock { $0.count } == 500 })
        #expect(order.withLock { $0 } == Array(0..<500))
    }
}
#endif
