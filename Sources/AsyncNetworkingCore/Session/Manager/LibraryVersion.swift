/// The library's version, as sent in its default `User-Agent`.
public enum AsyncNetworkingVersion {
    /// The version of this source tree, e.g. `0.23.0`.
    public static let current = "0.23.0"

    /// `AsyncNetworking/<version>`: the `User-Agent` a ``SessionManager`` sends on both transports
    /// when neither the request nor the configuration's `httpAdditionalHeaders` sets one
    /// (``HTTPClient`` sends ``DefaultHeaders/userAgent()`` through its default headers instead).
    public static var userAgent: String { "AsyncNetworking/\(current)" }
}
