@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// Host reachability (the kernel's route lookup) and interface kinds, live in namespaces.
@Suite(.enabled(if: NamespaceSupport.available, NamespaceSupport.skipReason))
struct ReachabilityHostTests {
    typealias ip = NamespaceSupport

    /// A veth pair a:v0 10.88.0.1/24 — b:v1 10.88.0.2/24, both up, and `lo` up in a.
    static func link(_ a: String, _ b: String, name: String = "v0") throws {
        try ip.run(["-n", a, "link", "set", "lo", "up"])
        try ip.run(["-n", a, "link", "add", name, "type", "veth", "peer", "name", "v1", "netns", b])
        try ip.run(["-n", a, "addr", "add", "10.88.0.1/24", "dev", name])
        try ip.run(["-n", b, "addr", "add", "10.88.0.2/24", "dev", "v1"])
        try ip.run(["-n", a, "link", "set", name, "up"])
        try ip.run(["-n", b, "link", "set", "v1", "up"])
    }

    @Test func aLANHostFollowsItsRoute() async throws {
        try await NamespaceSupport.withNamespaces(2) { names in
            let (a, b) = (names[0], names[1])
            let peer = try NetworkReachability(host: "10.88.0.2", namespacePath: ip.path(a))
            defer { peer.stopMonitoring() }
            let recorder = StatusRecorder(peer)
            var expected: [ReachabilityStatus] = [.unreachable]
            #expect(await recorder.waitForCount(1) == expected)
            try await recorder.expect(.reachable(via: .ethernet), after: { try Self.link(a, b) }, expected: &expected)
            try await recorder.expect(.unreachable, after: {
                try ip.run(["-n", b, "link", "set", "v1", "down"])
            }, expected: &expected)
            try await recorder.expect(.reachable(via: .ethernet), after: {
                try ip.run(["-n", b, "link", "set", "v1", "up"])
            }, expected: &expected)
            try await recorder.expect(.unreachable, after: {
                try ip.run(["-n", a, "addr", "del", "10.88.0.1/24", "dev", "v0"])
            }, expected: &expected)
        }
    }

    @Test func aDistantHostNeedsADefaultRoute() async throws {
        try await NamespaceSupport.withNamespaces(2) { names in
            let (a, b) = (names[0], names[1])
            try Self.link(a, b)
            // 192.0.2.1 (TEST-NET-1): reachable only through a default route.
            let distant = try NetworkReachability(host: "192.0.2.1", namespacePath: ip.path(a))
            defer { distant.stopMonitoring() }
            let recorder = StatusRecorder(distant)
            var expected: [ReachabilityStatus] = [.unreachable]
            #expect(await recorder.waitForCount(1) == expected)
            try await recorder.expect(.reachable(via: .ethernet), after: {
                try ip.run(["-n", a, "route", "add", "default", "via", "10.88.0.2"])
            }, expected: &expected)
            try await recorder.expect(.unreachable, after: {
                try ip.run(["-n", a, "route", "del", "default"])
            }, expected: &expected)
        }
    }

    @Test func ownAddressesAndLoopbackAreLoopbackOnly() async throws {
        try await NamespaceSupport.withNamespaces(2) { names in
            let (a, b) = (names[0], names[1])
            try Self.link(a, b)
            for host in ["10.88.0.1", "127.0.0.1", "::1", "[::1]", "localhost"] {
                let reachability = try NetworkReachability(host: host, namespacePath: ip.path(a))
                #expect(reachability.status == .reachable(via: .loopbackOnly), "\(host)")
                reachability.stopMonitoring()
            }
            let unknown = try NetworkReachability(host: "unresolvable.invalid", namespacePath: ip.path(a))
            #expect(unknown.status == .unreachable)
        }
    }

    @Test(arguments: [
        ("wwan0", ReachabilityStatus.Interface.cellular),
        ("wlan0", .wifi),
        ("eth0", .ethernet),
    ])
    func interfaceKindComesFromTheLink(name: String, kind: ReachabilityStatus.Interface) async throws {
        try await NamespaceSupport.withNamespaces(2) { names in
            let (a, b) = (names[0], names[1])
            try Self.link(a, b, name: name)
            try ip.run(["-n", a, "route", "add", "default", "via", "10.88.0.2"])
            let reachability = try NetworkReachability(host: nil, namespacePath: ip.path(a))
            defer { reachability.stopMonitoring() }
            // The veth's carrier reaches IFF_RUNNING through the kernel's link watch, which may
            // lag the `ip` command by up to a second: wait for it rather than race it.
            #expect(await eventually { reachability.status == .reachable(via: kind) })
            #expect(reachability.isReachableViaWWAN == (kind == .cellular))
            #expect(reachability.isReachableViaWiFi == (kind == .wifi))
        }
    }

    @Test func aMissingNamespaceIsATypedError() throws {
        do {
            _ = try NetworkReachability(host: nil, namespacePath: "/var/run/netns/\(NamespaceSupport.uniqueName())-absent")
            Issue.record("expected reachabilityUnavailable")
        } catch {
            #expect(error.kind == .reachabilityUnavailable)
            #expect(error.message.contains("namespace"))
        }
    }
}
