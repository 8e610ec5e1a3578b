import Testing
@testable import AnfetchKit

/// Rule: anfetch's totals never trap on what servers declare: downloads answering
/// `Content-Length: 9223372036854775807` sum to Int64.max, not an overflow. Run in a child process
/// (an exit test): before the fix the sum trapped.
@Suite("Anfetch totals of huge declared sizes")
struct AnfetchWireNumberTests {
    static func checkTotals() {
        var board = BoardState(count: 3)
        for index in 0..<3 {
            board.start(index, name: "f\(index)", at: 0)
            board.progress(index, completed: 10, expected: .max, at: 1)
        }
        let snapshot = board.snapshot(at: 2)
        precondition(snapshot.expectedBytes == .max && snapshot.completedBytes == 30, "\(snapshot)")
        _ = ProgressRenderer.lines(for: snapshot, width: 120)
    }

    @Test func totalsOfHugeDeclaredSizesSaturate() async {
        await #expect(processExitsWith: .success) { AnfetchWireNumberTests.checkTotals() }
    }
}
