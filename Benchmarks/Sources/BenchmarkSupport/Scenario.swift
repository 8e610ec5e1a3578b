/// The scenarios, in the order they run and are reported: `benchmarks` runs them all, `peers` the
/// request scenarios, stream-1g and mixed-load (``peers``).
package enum Scenario: String, CaseIterable, Sendable, Hashable {
    case smallSeq = "small-seq"
    case smallC16 = "small-c16"
    case batch1000 = "batch-1000"
    case stream1g = "stream-1g"
    case download1g = "download-1g"
    case upload1g = "upload-1g"
    case slowConsumer1g = "slow-consumer-1g"
    case mixedLoad = "mixed-load"

    /// Measured in child processes, one per variant and round, so peak RSS values do not mix.
    package var isMemoryScenario: Bool {
        switch self {
        case .smallSeq, .smallC16, .batch1000: return false
        case .stream1g, .download1g, .upload1g, .slowConsumer1g, .mixedLoad: return true
        }
    }

    /// The scenarios `peers` runs, in order.
    package static let peers: [Scenario] = [.smallSeq, .smallC16, .batch1000, .stream1g, .mixedLoad]

    /// In flight at once in `peers`: 1, 16, or the batch width 8.
    package var width: Int {
        switch self {
        case .smallC16: return 16
        case .batch1000: return 8
        default: return 1
        }
    }
}
