import Testing
import AsyncNetworking

/// The tags the suites share (`swift test --filter` selects by suite name; tags group across targets).
extension Tag {
    /// The fault suite: servers and clients misbehaving. Run alone with `swift test --filter Fault`.
    @Tag static var fault: Self
    /// Long-running leak and soak checks; skipped unless `ASYNCNETWORKING_SOAK=1`.
    @Tag static var soak: Self
}
