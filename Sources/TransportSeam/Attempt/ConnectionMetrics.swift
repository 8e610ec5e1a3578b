import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the last attempt of a transfer used the network (libcurl's `CURLINFO_*` on the curl
/// transport). Times are measured from that attempt's start.
public struct ConnectionMetrics: Sendable, Hashable {
    /// Name resolution done.
    public var nameLookup: Duration
    /// TCP connected.
    public var connect: Duration
    /// TLS handshake done (zero for cleartext and for a reused connection).
    public var secureConnection: Duration
    /// About to send the request.
    public var requestStart: Duration
    /// First response byte.
    public var firstByte: Duration
    /// The whole attempt.
    public var total: Duration
    /// `HTTP/1.1`, `HTTP/2`, …, or `nil` when no response arrived.
    public var httpVersion: String?
    /// Whether the attempt ran on a connection that was already open (keep-alive).
    public var reusedConnection: Bool
    /// The peer's address and port.
    public var remoteAddress: String?
    /// The peer's port.
    public var remotePort: Int?
    /// The local address of the connection (`CURLINFO_LOCAL_IP`); `nil` when none was made.
    public var localAddress: String? = nil
    /// The local port of the connection (`CURLINFO_LOCAL_PORT`): the port the server sees the
    /// request come from. `nil` when no connection was made.
    public var localPort: Int? = nil
    /// The response body's bytes as they came off the connection: after a transfer coding
    /// (`chunked`) is removed, before a content coding (`Content-Encoding: gzip`, …) is decoded
    /// (`CURLINFO_SIZE_DOWNLOAD_T`). `nil` when the transport does not count them (URLSession
    /// decodes below the library and reports no count).
    public var bodyBytesReceived: Int64? = nil

    /// Which connection carried the attempt: `local-address:port>remote-address:port` (IPv6
    /// addresses in brackets), from the connection's address tuple — libcurl 7.88 has no
    /// connection number (`CURLINFO_CONN_ID` is 8.2). Equal for attempts on the same connection
    /// (keep-alive reuse, HTTP/2 streams multiplexed on one connection), different for another
    /// connection open at the same time; a closed connection's tuple may come back later when the
    /// operating system reuses the local port. Through a proxy the remote end is the proxy.
    /// `nil` when the addresses are unknown (no connection was made, or URLSession).
    public var connectionIdentifier: String? {
        guard let localAddress, let localPort, let remoteAddress, let remotePort else { return nil }
        func endpoint(_ address: String, _ port: Int) -> String {
            address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        }
        return endpoint(localAddress, localPort) + ">" + endpoint(remoteAddress, remotePort)
    }

    /// Creates a value; every field as described on its property.
    public init(
        nameLookup: Duration, connect: Duration, secureConnection: Duration, requestStart: Duration,
        firstByte: Duration, total: Duration, httpVersion: String?, reusedConnection: Bool,
        remoteAddress: String?, remotePort: Int?
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.secureConnection = secureConnection
        self.requestStart = requestStart
        self.firstByte = firstByte
        self.total = total
        self.httpVersion = httpVersion
        self.reusedConnection = reusedConnection
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
    }
}
