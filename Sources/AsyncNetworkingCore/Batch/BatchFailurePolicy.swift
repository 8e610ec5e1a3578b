/// What a stream of batch completions does when a member fails.
public enum BatchFailurePolicy: Sendable, Hashable {
    /// The first failure is delivered as the last element: members still running are then
    /// cancelled, members not yet started never start, and the sequence ends.
    case failFast
    /// Every member runs to its end and every outcome is delivered, failures included.
    case settleAll
}
