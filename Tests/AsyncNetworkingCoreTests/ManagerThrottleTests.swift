@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// The pure progress throttle behind the activity stream.
@Suite("Manager: progress throttle")
struct ManagerThrottleTests {
    let start = ContinuousClock.now

    @Test func aKnownTotalIsPublishedInAboutFiftyStepsAndAlwaysAtTheEnd() {
        var throttle = ProgressThrottle()
        let total: Int64 = 64 << 20
        var published: [Int64] = []
        // 16 KiB chunks, all at the same instant: only the byte steps count.
        for completed in stride(from: Int64(16 << 10), through: total, by: 16 << 10) {
            if throttle.shouldPublish(TransferProgress(completedBytes: completed, expectedBytes: total), now: start) {
                published.append(completed)
            }
        }
        #expect(published.first == 16 << 10, "the first value is published")
        #expect(published.last == total, "the value that completes the total is published")
        #expect(published.count <= Int(ProgressThrottle.stepsPerTotal) + 2, "\(published.count)")
        #expect(published.count >= Int(ProgressThrottle.stepsPerTotal) - 1)
        let leftover = throttle.final(TransferProgress(completedBytes: total, expectedBytes: total))
        #expect(!leftover, "nothing left to publish")
    }

    @Test func aSlowTransferIsPublishedOncePerIntervalAndUnchangedValuesNever() {
        var throttle = ProgressThrottle()
        let progress = { (bytes: Int64) in TransferProgress(completedBytes: bytes, expectedBytes: 1 << 30) }
        let answers = [
            throttle.shouldPublish(progress(10), now: start),
            throttle.shouldPublish(progress(20), now: start + .milliseconds(10)), // too soon, too small
            throttle.shouldPublish(progress(30), now: start + ProgressThrottle.interval), // an interval passed
            throttle.shouldPublish(progress(30), now: start + .seconds(60)), // no movement, no event
            throttle.final(progress(40)), // the final value the throttle held back
            throttle.final(progress(40)),
        ]
        #expect(answers == [true, false, true, false, true, false])
    }

    @Test func anUnknownTotalUsesAFixedStepAndResetStartsOver() {
        var throttle = ProgressThrottle()
        let unknown = { (bytes: Int64) in TransferProgress(completedBytes: bytes, expectedBytes: nil) }
        let answers = [
            throttle.shouldPublish(unknown(1), now: start),
            throttle.shouldPublish(unknown(ProgressThrottle.unknownStep), now: start),
            throttle.shouldPublish(unknown(ProgressThrottle.unknownStep + 1), now: start),
        ]
        #expect(answers == [true, false, true])
        throttle.reset()
        #expect(throttle.lastPublished == nil)
        let emptyBody = throttle.final(unknown(0))
        #expect(emptyBody, "an empty body still ends with one event")
        #expect(ProgressThrottle.step(expected: 1000) == ProgressThrottle.minimumStep)
        #expect(ProgressThrottle.step(expected: 1 << 30) == (1 << 30) / ProgressThrottle.stepsPerTotal)
    }
}
