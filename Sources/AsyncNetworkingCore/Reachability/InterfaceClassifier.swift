/// What is known about a link when it is classified: its netlink facts, plus what sysfs says
/// (only read in the process's own network namespace, since `/sys/class/net` shows the
/// namespace sysfs was mounted in, not the calling thread's).
struct InterfaceFacts: Sendable, Hashable {
    var name: String
    /// `ARPHRD_*`.
    var hardwareType: UInt16
    /// `IFF_*`.
    var flags: UInt32
    /// `/sys/class/net/<name>/wireless` or `/sys/class/net/<name>/phy80211` exists.
    var isWireless = false
    /// `DEVTYPE=` from `/sys/class/net/<name>/uevent` (`wlan`, `wwan`, `bridge`, `vlan`...), if any.
    var deviceType: String?
    /// Whether sysfs was read (false inside another namespace or when `/sys` is not mounted).
    var sysfsRead = false
}

/// Turns a link's facts into the interface kind a status reports. Pure.
enum InterfaceClassifier {
    /// In order: the loopback; Wi-Fi (sysfs `wireless`/`phy80211`, `DEVTYPE=wlan`); cellular
    /// (`DEVTYPE=wwan`, or a `wwan`, `rmnet` or `ccmni` name, as ModemManager-era drivers name
    /// them); when sysfs could not be read, a `wl` name is taken as Wi-Fi (systemd and the kernel
    /// name WLAN links `wl*`); Ethernet (`ARPHRD_ETHER`); anything else is `other`.
    static func classify(_ facts: InterfaceFacts) -> ReachabilityStatus.Interface {
        if facts.flags & Netlink.flagLoopback != 0 || facts.hardwareType == Netlink.hardwareLoopback {
            return .loopbackOnly
        }
        if facts.isWireless || facts.deviceType == "wlan" { return .wifi }
        if facts.deviceType == "wwan" { return .cellular }
        if ["wwan", "rmnet", "ccmni"].contains(where: facts.name.hasPrefix) { return .cellular }
        if !facts.sysfsRead, facts.name.hasPrefix("wl") { return .wifi }
        if facts.hardwareType == Netlink.hardwareEthernet { return .ethernet }
        return .other
    }

    /// The `DEVTYPE=` value of a sysfs `uevent` file's text.
    static func deviceType(fromUevent text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("DEVTYPE=") {
            return String(line.dropFirst("DEVTYPE=".count))
        }
        return nil
    }
}
