import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionManager {
    /// A copy of `configuration` whose timeouts FoundationNetworking can convert without trapping
    /// (it computes `Int(seconds) * 1000`): `timeoutIntervalForRequest` and
    /// `timeoutIntervalForResource` that are zero, infinite or huge mean no timeout (as on curl),
    /// NaN and negative ones are URLSession's defaults (60 s and 7 days), fractions round up to
    /// whole seconds. See ``SafeTime/foundationTimeout(_:fallback:)``.
    static func trapFreeTimeouts(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let request = SafeTime.foundationTimeout(configuration.timeoutIntervalForRequest, fallback: 60)
        let resource = SafeTime.foundationTimeout(configuration.timeoutIntervalForResource, fallback: 604_800)
        guard request != configuration.timeoutIntervalForRequest || resource != configuration.timeoutIntervalForResource,
              let copy = configuration.copy() as? URLSessionConfiguration else { return configuration }
        copy.timeoutIntervalForRequest = request
        copy.timeoutIntervalForResource = resource
        return copy
    }
}
