@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

@Suite("Batch: progress arithmetic")
struct BatchProgressStateTests {
    private func progress(_ done: Int64, _ expected: Int64?) -> TransferProgress {
        TransferProgress(completedBytes: done, expectedBytes: expected)
    }

    @Test func startsEmpty() {
        let snapshot = BatchProgressState(count: 4).snapshot
        #expect(snapshot.totalCount == 4 && snapshot.finishedCount == 0 && snapshot.failedCount == 0)
        #expect(snapshot.download == progress(0, 0))
        #expect(snapshot.upload == progress(0, 0))
        #expect(snapshot.fractionCompleted == 0)
        #expect(!snapshot.isFinished)
    }

    @Test func expectedIsKnownOnlyWhileEveryRespondedMemberKnowsIt() {
        var state = BatchProgressState(count: 3)
        state.response(0, expectedBytes: 100)
        #expect(state.snapshot.download == progress(0, 100), "members without a response are not counted yet")
        state.response(1, expectedBytes: nil)
        #expect(state.snapshot.download.expectedBytes == nil)
        state.download(1, progress(40, nil))
        state.download(0, progress(50, 100))
        #expect(state.snapshot.download == progress(90, nil))
        state.finish(1, failed: false, received: 70)
        #expect(state.snapshot.download == progress(120, 170), "an ended member counts what it received")
    }

    @Test func fractionIsTheMeanOfTheMembersFractions() {
        var state = BatchProgressState(count: 4)
        state.response(0, expectedBytes: 200)
        state.download(0, progress(100, 200))   // 0.5
        state.finish(1, failed: true)           // 1
        state.response(2, expectedBytes: nil)
        state.download(2, progress(10, nil))    // unknown: 0
        // member 3 not started: 0
        #expect(abs(state.snapshot.fractionCompleted - 1.5 / 4) < 1e-12)
        state.finish(0, failed: false, received: 200)
        state.finish(2, failed: false, received: 30)
        state.finish(3, failed: false, received: 0)
        let snapshot = state.snapshot
        #expect(snapshot.fractionCompleted == 1)
        #expect(snapshot.isFinished && snapshot.failedCount == 1)
        #expect(snapshot.download == progress(230, 230))
    }

    @Test func uploadsMoveTheFractionBeforeTheResponse() {
        var state = BatchProgressState(count: 1)
        state.upload(0, progress(250, 1000))
        #expect(state.snapshot.fractionCompleted == 0.25)
        #expect(state.snapshot.upload == progress(250, 1000))
        state.upload(0, progress(1000, 1000))
        state.response(0, expectedBytes: 1000)
        #expect(state.snapshot.fractionCompleted == 0.5)
        state.download(0, progress(1000, 1000))
        #expect(state.snapshot.fractionCompleted == 1)
        state.finish(0, failed: false, sent: 1000, received: 1000)
        #expect(state.snapshot.upload == progress(1000, 1000))
        #expect(state.snapshot.download == progress(1000, 1000))
    }

    @Test func anUploadOfUnknownLengthMakesTheUploadTotalUnknown() {
        var state = BatchProgressState(count: 2)
        state.upload(0, progress(10, 100))
        state.upload(1, progress(5, nil))
        #expect(state.snapshot.upload == progress(15, nil))
        state.finish(1, failed: false, sent: 80)
        #expect(state.snapshot.upload == progress(90, 180))
    }

    @Test func updatesAfterTheEndAreIgnored() {
        var state = BatchProgressState(count: 1)
        state.finish(0, failed: false, received: 10)
        state.download(0, progress(99, 99))
        state.finish(0, failed: true)
        #expect(state.snapshot.download == progress(10, 10))
        #expect(state.snapshot.failedCount == 0 && state.snapshot.finishedCount == 1)
    }
}
