import Testing
@testable import AnfetchKit

@Suite("Anfetch progress renderer")
struct AnfetchRendererTests {
    static let snapshot = ProgressSnapshot(
        active: [
            .init(name: "dataset.bin", completedBytes: 224 << 20, expectedBytes: 256 << 20, bytesPerSecond: Double(64 << 20)),
            .init(name: "stream.log", completedBytes: 8 << 20, expectedBytes: nil, bytesPerSecond: Double(1 << 20)),
            .init(name: "a-very-long-file-name-that-goes-on-and-on-and-on.tar.gz", completedBytes: 1 << 20,
                  expectedBytes: 4 << 20, bytesPerSecond: nil, note: "retry 1/3 from 1.00 MiB"),
        ],
        totalCount: 8, succeededCount: 3, failedCount: 1, completedBytes: 300 << 20, expectedBytes: nil,
        bytesPerSecond: Double(65 << 20), elapsed: 4.2
    )

    @Test func oneLinePerActiveTransferAndATotal() {
        let lines = ProgressRenderer.lines(for: Self.snapshot, width: 120)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("dataset.bin"))
        #expect(lines[0].contains("87%"))
        #expect(lines[0].contains("[") && lines[0].contains("224 MiB / 256 MiB") && lines[0].contains("64.0 MiB/s"))
        #expect(lines[0].contains("ETA 0:01"))
        // Unknown size: bytes instead of a percentage, no bar, no ETA.
        #expect(lines[1].contains("8.00 MiB") && !lines[1].contains("%") && !lines[1].contains("[") && !lines[1].contains("ETA"))
        #expect(lines[2].contains("…") && lines[2].contains(".tar.gz") && lines[2].contains("retry 1/3"))
        #expect(lines[3].hasPrefix("total 4/8"))
        #expect(lines[3].contains("1 failed") && lines[3].contains("1 waiting") && lines[3].contains("0:05"))
    }

    @Test func noLineIsEverWiderThanTheTerminal() {
        for width in [1, 5, 12, 20, 30, 40, 50, 60, 80, 100, 132, 200] {
            for line in ProgressRenderer.lines(for: Self.snapshot, width: width) {
                #expect(Formatting.columns(line) <= width, "width \(width): \(line)")
            }
        }
    }

    @Test func barsLineUpAndGoFirstWhenNarrow() {
        let known = ProgressSnapshot(
            active: [.init(name: "a.bin", completedBytes: 5, expectedBytes: 10, bytesPerSecond: 1),
                     .init(name: "longer-name.iso", completedBytes: 1, expectedBytes: 10, bytesPerSecond: 1)],
            totalCount: 3, succeededCount: 0, failedCount: 1, completedBytes: 6, expectedBytes: 20,
            bytesPerSecond: 2, elapsed: 1
        )
        let wide = ProgressRenderer.lines(for: known, width: 120)
        let bars = wide.map { line in line.firstIndex(of: "[").map { line.distance(from: line.startIndex, to: $0) } }
        let ends = wide.map { line in line.firstIndex(of: "]").map { line.distance(from: line.startIndex, to: $0) } }
        #expect(bars.count == 3 && !bars.contains(nil) && Set(bars).count == 1, "\(wide)")
        #expect(Set(ends).count == 1, "\(wide)")
        let narrow = ProgressRenderer.lines(for: Self.snapshot, width: 60)
        #expect(!narrow[0].contains("["))
        #expect(narrow[0].contains("87%"))
    }

    @Test func manyTransfersNeverOutgrowTheTerminal() {
        var snapshot = Self.snapshot
        snapshot.active = (0..<40).map { .init(name: "f\($0).bin", completedBytes: 1, expectedBytes: 2, bytesPerSecond: 1) }
        snapshot.totalCount = 40
        let lines = ProgressRenderer.lines(for: snapshot, width: 80, height: 10)
        #expect(lines.count == 9)
        #expect(lines[7].hasPrefix("+33 more"))
        #expect(lines[8].hasPrefix("total"))
        #expect(ProgressRenderer.lines(for: snapshot, width: 80).count == 41)
    }

    @Test func beforeTheResponseALineSaysConnecting() {
        var snapshot = Self.snapshot
        snapshot.active = [.init(name: "late.bin", completedBytes: 0, expectedBytes: nil, bytesPerSecond: nil, connecting: true)]
        let line = ProgressRenderer.lines(for: snapshot, width: 80)[0]
        #expect(line.hasPrefix("late.bin") && line.hasSuffix("connecting") && !line.contains("0 B"))
    }

    @Test func wideCharactersCountTwoColumns() {
        var snapshot = Self.snapshot
        snapshot.active = [.init(name: "写真アルバム写真アルバム写真アルバム.zip", completedBytes: 1, expectedBytes: 2, bytesPerSecond: 1)]
        for width in [30, 50, 80] {
            for line in ProgressRenderer.lines(for: snapshot, width: width) {
                #expect(Formatting.columns(line) <= width)
            }
        }
        #expect(Formatting.columns("写真") == 4)
    }

    @Test func totalShowsPercentWhenEverySizeIsKnown() {
        let snapshot = ProgressSnapshot(
            active: [.init(name: "a", completedBytes: 50, expectedBytes: 100, bytesPerSecond: 10)],
            totalCount: 2, succeededCount: 1, failedCount: 0, completedBytes: 150, expectedBytes: 200,
            bytesPerSecond: 10, elapsed: 1
        )
        let total = ProgressRenderer.lines(for: snapshot, width: 120).last ?? ""
        #expect(total.contains("75%") && total.contains("ETA 0:05"))
    }

    @Test func plainLinesForLogs() {
        let line = ProgressRenderer.plainLine(for: Self.snapshot)
        #expect(line.hasPrefix("progress: 4/8 done"))
        #expect(line.contains("dataset.bin 87%") && line.contains("stream.log 8.00 MiB") && line.contains("1 failed"))
    }

    @Test func formatting() {
        #expect(Formatting.bytes(0) == "0 B")
        #expect(Formatting.bytes(1536) == "1.50 KiB")
        #expect(Formatting.bytes(300 << 20) == "300 MiB")
        #expect(Formatting.duration(65) == "1:05")
        #expect(Formatting.duration(3725) == "1:02:05")
        #expect(Formatting.duration(nil) == "--:--")
        #expect(Formatting.fit("abcdefghij.bin", width: 9) == "abcd….bin")
    }
}

@Suite("Anfetch progress board")
struct AnfetchBoardTests {
    @Test func rateComesFromTheRecentWindow() throws {
        var meter = RateMeter(window: 3)
        meter.record(bytes: 0, at: 0)
        #expect(meter.rate(at: 0.1) == nil)
        meter.record(bytes: 1000, at: 1)
        #expect(try #require(meter.rate(at: 1)) == 1000)
        meter.record(bytes: 1000, at: 10)
        // The old samples left the window: nothing moved lately.
        #expect(try #require(meter.rate(at: 10)) < 200)
        meter.record(bytes: 10, at: 11)  // restarted from 0
        #expect(meter.rate(at: 11) == nil)
    }

    @Test func boardCountsPhasesAndBytesOfThisRunOnly() throws {
        var board = BoardState(count: 3)
        board.start(0, name: "a", bytesOnDisk: 100, note: "resumed at 100 B", at: 0)
        board.progress(0, completed: 300, expected: 1000, at: 1)
        var snapshot = board.snapshot(at: 1)
        #expect(snapshot.active.map(\.name) == ["a"])
        #expect(snapshot.active[0].note == "resumed at 100 B")
        #expect(snapshot.active[0].fraction == 0.3)
        #expect(snapshot.waitingCount == 2)
        #expect(snapshot.expectedBytes == nil)  // two have not started
        #expect(try #require(snapshot.bytesPerSecond) == 200)  // 200 new bytes in 1 s; the kept 100 do not count
        #expect(snapshot.active[0].connecting == false)
        board.start(1, name: "b", at: 1)
        #expect(board.snapshot(at: 1).active[1].connecting)
        board.responded(1)
        #expect(!board.snapshot(at: 1).active[1].connecting)
        board.finish(1, succeeded: false, bytes: nil)
        board.start(2, name: "c", at: 1)
        board.progress(2, completed: 50, expected: 50, at: 2)
        board.finish(2, succeeded: true, bytes: 50, name: "c-renamed")
        snapshot = board.snapshot(at: 2)
        #expect(snapshot.succeededCount == 1 && snapshot.failedCount == 1 && snapshot.waitingCount == 0)
        #expect(snapshot.completedBytes == 350)
        #expect(snapshot.expectedBytes == 1050)
    }
}
