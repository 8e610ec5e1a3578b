/// Whether the network (or one host) can be reached, and through what kind of interface:
/// AFNetworking's `AFNetworkReachabilityStatus`, with the interface named instead of "WWAN or WiFi".
///
/// There is no `unknown` case: a ``NetworkReachability`` reads the current state before its
/// initializer returns, so a status is always known.
public enum ReachabilityStatus: Sendable, Hashable, CustomStringConvertible {
    /// Nothing can be reached: no usable default route (for the network), or no usable route to
    /// the host (for a host).
    case unreachable
    /// Reachable through an interface of this kind.
    case reachable(via: Interface)

    /// The kind of interface a destination is reached through.
    public enum Interface: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Wired Ethernet (on Linux: an `ARPHRD_ETHER` link that is neither wireless nor cellular,
        /// veth and bridges included).
        case ethernet
        /// Wi-Fi (on Linux: the link has `/sys/class/net/<name>/wireless` or `phy80211`, or its
        /// `uevent` says `DEVTYPE=wlan`).
        case wifi
        /// A cellular modem (on Linux: `DEVTYPE=wwan`, or a `wwan*`, `rmnet*` or `ccmni*` name):
        /// AFNetworking's "WWAN".
        case cellular
        /// Only this machine: the loopback interface. For the network as a whole: no default
        /// route, and the loopback is the only interface with an address. For a host: the host is
        /// one of this machine's own addresses.
        case loopbackOnly
        /// Anything else: tunnels, point-to-point links, InfiniBand...
        case other

        /// `ethernet`, `wifi`, `cellular`, `loopbackOnly` or `other`.
        public var description: String {
            switch self {
            case .ethernet: "ethernet"
            case .wifi: "wifi"
            case .cellular: "cellular"
            case .loopbackOnly: "loopbackOnly"
            case .other: "other"
            }
        }
    }

    /// Whether this is a ``reachable(via:)`` status (any interface, the loopback included).
    public var isReachable: Bool {
        if case .reachable = self { return true }
        return false
    }

    /// The interface kind of a ``reachable(via:)`` status, else `nil`.
    public var interface: Interface? {
        if case .reachable(let interface) = self { return interface }
        return nil
    }

    /// `unreachable` or `reachable(via: wifi)` and so on; AFNetworking's
    /// `AFStringFromNetworkReachabilityStatus`, not localized.
    public var description: String {
        switch self {
        case .unreachable: "unreachable"
        case .reachable(let interface): "reachable(via: \(interface))"
        }
    }
}
