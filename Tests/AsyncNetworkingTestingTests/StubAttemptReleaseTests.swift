import Synchronization
@testable import AsyncNetworkingTesting
@testable import AsyncNetworkingTestSupport

/// Rule: nothing an attempt retained while reporting under its lock is released inside that lock.
/// The last release of a manager runs its `deinit`, which releases the stubs transport, whose
/// `deinit` cancels the attempts still listed — taking the very lock being held (Mutex traps on a
/// recursive lock). The reporter below stands in for that chain: whatever it hands back re-enters
/// the attempt when released.
@Suite("StubAttempt releases what reporting retained outside its lock")
struct StubAttemptReleaseTests {
    /// Runs `action` when released.
    final class ReentersOnRelease: Sendable {
        let action: @Sendable () -> Void
        init(_ action: @escaping @Sendable () -> Void) { self.action = action }
        deinit { action() }
    }

    /// A reference that does not keep the attempt alive.
    final class WeakAttempt: Sendable {
        private let box = SanitizedMutex<Weak>(Weak())
        struct Weak: Sendable { weak var attempt: StubAttempt? }
        var attempt: StubAttempt? {
            get { box.withLock { $0.attempt } }
            set { box.withLock { $0.attempt = newValue } }
        }
    }

    @Test("a retained object whose release cancels the attempt: each event reported once, cancel after the lock")
    func releaseReentersTheAttempt() {
        let reported = SanitizedMutex<[String]>([])
        let ended = SanitizedMutex(0)
        let target = WeakAttempt()
        let attempt = StubAttempt(
            id: AttemptID(1),
            report: { _, event in
                let name: String
                switch event {
                case .sent(let bytes, _): name = "sent \(bytes)"
                case .completed(let outcome): name = (outcome.error as? URLError)?.code == .cancelled ? "cancelled" : "completed"
                default: name = "other"
                }
                reported.withLock { $0.append(name) }
                // Released by the attempt: re-enters it, as the transport's deinit would.
                return ReentersOnRelease { target.attempt?.cancel() }
            },
            ended: { _ in ended.withLock { $0 += 1 } }
        )
        target.attempt = attempt

        #expect(attempt.send(.sent(bytes: 10, totalExpected: 10)))
        // The release after `send` cancelled the attempt: later events go nowhere.
        #expect(!attempt.send(.sent(bytes: 20, totalExpected: 20)))
        attempt.cancel()
        #expect(reported.withLock { $0 } == ["sent 10", "cancelled"])
        #expect(ended.withLock { $0 } == 1)
    }

    @Test("stubbed managers released the moment their answers arrive are torn down cleanly")
    func managersReleasedAsAnswersArrive() async throws {
        let stubs = HTTPStubs()
        stubs.on(.get, "https://api.test/x", respond: .text("x"))
        try await withDeadline {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<100 {
                            let (body, _) = try await SessionManager(stubs: stubs).data(from: URL(string: "https://api.test/x")!)
                            #expect(body == Data("x".utf8))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
