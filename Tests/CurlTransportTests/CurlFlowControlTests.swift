@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

@Suite("Curl flow control (pure)")
struct CurlFlowControlTests {
    /// Admits each chunk in turn; returns which were admitted.
    private func admit(_ flow: inout CurlFlowControl, _ chunks: [Int]) -> [Bool] {
        chunks.map { flow.admit($0) }
    }

    @Test("without a window every chunk is admitted and counted")
    func noWindow() {
        var flow = CurlFlowControl(window: nil)
        #expect(admit(&flow, Array(repeating: 16_384, count: 100)).allSatisfy { $0 })
        #expect(flow.received == 1_638_400)
        #expect(flow.mask == 0)
    }

    @Test("a command pause refuses chunks without counting them, and only the command resumes")
    func commandPause() {
        var flow = CurlFlowControl(window: nil)
        #expect(admit(&flow, [100]) == [true])
        let paused = flow.setReceivingPaused(true)
        let pausedAgain = flow.setReceivingPaused(true)
        #expect(paused && !pausedAgain) // a repeat changes nothing: no curl call
        #expect(flow.mask == 1)
        #expect(admit(&flow, [100, 100]) == [false, false])
        #expect(flow.received == 100)
        let consumed = flow.didConsume(total: 100)
        #expect(!consumed)
        let resumed = flow.setReceivingPaused(false)
        #expect(resumed && flow.mask == 0)
        #expect(admit(&flow, [100]) == [true])
        #expect(flow.received == 200)
    }

    @Test("the window refuses the chunk after it is full; consuming reopens it")
    func window() {
        var flow = CurlFlowControl(window: 1000)
        // 600 < 1000: admitted (overshooting by one chunk); then 1200 >= 1000: refused.
        #expect(admit(&flow, [600, 600, 600]) == [true, true, false])
        #expect(flow.receivingPausedByWindow && flow.mask == 1)
        #expect(flow.received == 1200)
        let notYet = flow.didConsume(total: 100) // 1100 still >= 1000
        let ignored = flow.didConsume(total: 50) // smaller totals are ignored
        #expect(!notYet && !ignored && flow.consumed == 100)
        let reopened = flow.didConsume(total: 300) // 900 < 1000
        #expect(reopened && flow.mask == 0)
        #expect(admit(&flow, [600]) == [true]) // the re-delivered chunk is counted once, now
        #expect(flow.received == 1800)
    }

    @Test("a command pause outlasts a reopened window, and vice versa")
    func bothReasons() {
        var flow = CurlFlowControl(window: 10)
        #expect(admit(&flow, [10, 10]) == [true, false])
        let commandChanged = flow.setReceivingPaused(true) // already paused by the window
        let windowChanged = flow.didConsume(total: 10) // window open, the command still holds
        #expect(!commandChanged && !windowChanged && flow.mask == 1)
        let resumed = flow.setReceivingPaused(false)
        #expect(resumed && flow.mask == 0)

        var other = CurlFlowControl(window: 10)
        #expect(admit(&other, [10, 10]) == [true, false])
        _ = other.setReceivingPaused(true)
        let commandResumed = other.setReceivingPaused(false) // the window still holds
        #expect(!commandResumed && other.mask == 1)
    }

    @Test("send pauses combine with receive pauses in one curl_easy_pause mask")
    func sendSide() {
        var flow = CurlFlowControl(window: nil)
        flow.producerIsEmpty()
        #expect(flow.mask == 4 && flow.isPaused)
        _ = flow.setReceivingPaused(true)
        #expect(flow.mask == 5)
        let sendResumed = flow.setSendingPaused(false)
        #expect(sendResumed && flow.mask == 1) // resuming the send side keeps the receive bit
        _ = flow.setReceivingPaused(false)
        #expect(!flow.isPaused)
    }

    @Test("a replacing response head restarts the counts")
    func restart() {
        var flow = CurlFlowControl(window: 100)
        #expect(admit(&flow, [80]) == [true])
        _ = flow.didConsume(total: 50)
        flow.restart()
        #expect(flow.received == 0 && flow.consumed == 0)
        #expect(admit(&flow, [99]) == [true])
    }
}
