import Testing
@testable import NetworkingPrimitives

/// Rule: `SanitizedMutex` gives exclusive access: concurrent increments from many tasks are never lost.
@Suite("The shared TSan-visible lock")
struct SanitizedMutexTests {
    @Test func concurrentIncrementsAreNeverLost() async {
        let counter = SanitizedMutex(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<10_000 { counter.withLock { $0 += 1 } } }
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }
}
