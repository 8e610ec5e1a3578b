@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// The Linux monitor against a real kernel: namespaces and veth pairs made by the test, links and
/// routes brought up and down, the exact sequence of statuses asserted. The monitor runs inside
/// the test's namespace (its thread calls `setns`), so nothing on the host changes.
@Suite(.enabled(if: NamespaceSupport.available, NamespaceSupport.skipReason))
struct ReachabilityNamespaceTests {
    typealias ip = NamespaceSupport

    @Test func networkStatusFollowsLinksAndRoutes() async throws {
        try await NamespaceSupport.withNamespaces(2) { names in
            let (a, b) = (names[0], names[1])
            let reachability = try NetworkReachability(host: nil, namespacePath: ip.path(a))
            defer { reachability.stopMonitoring() }
            // A fresh namespace: only `lo`, down, without addresses.
            #expect(reachability.status == .unreachable)
            let recorder = StatusRecorder(reachability)
            var expected: [ReachabilityStatus] = [.unreachable]
            #expect(await recorder.waitForCount(1) == expected)

            try await recorder.expect(.reachable(via: .loopbackOnly), after: {
                try ip.run(["-n", a, "link", "set", "lo", "up"])
            }, expected: &expected)
            // v0 (in a) gets an address and goes up, but its peer is down: no carrier, no change.
            // Then the peer comes up: v0 has a LAN address but no default route.
            try await recorder.expect(.unreachable, after: {
                try ip.run(["-n", a, "link", "add", "v0", "type", "veth", "peer", "name", "v1", "netns", b])
                try ip.run(["-n", a, "addr", "add", "10.77.0.1/24", "dev", "v0"])
                try ip.run(["-n", a, "link", "set", "v0", "up"])
                try ip.run(["-n", b, "addr", "add", "10.77.0.2/24", "dev", "v1"])
                try ip.run(["-n", b, "link", "set", "v1", "up"])
            }, expected: &expected)
            try await recorder.expect(.reachable(via: .ethernet), after: {
                try ip.run(["-n", a, "route", "add", "default", "via", "10.77.0.2"])
            }, expected: &expected)
            #expect(reachability.isReachableViaEthernet && reachability.isReachable && !reachability.isReachableViaWiFi)
            // The peer goes down: v0 loses its carrier (the route stays, marked linkdown), so
            // only lo is left usable.
            try await recorder.expect(.reachable(via: .loopbackOnly), after: {
                try ip.run(["-n", b, "link", "set", "v1", "down"])
            }, expected: &expected)
            try await recorder.expect(.reachable(via: .ethernet), after: {
                try ip.run(["-n", b, "link", "set", "v1", "up"])
            }, expected: &expected)
            // v0 set down: the kernel drops its routes without a notification (the monitor reads
            // them again); only lo is left with a usable address.
            try await recorder.expect(.reachable(via: .loopbackOnly), after: {
                try ip.run(["-n", a, "link", "set", "v0", "down"])
            }, expected: &expected)
            try await recorder.expect(.unreachable, after: {
                try ip.run(["-n", a, "link", "set", "v0", "up"])
            }, expected: &expected)
            try await recorder.expect(.reachable(via: .ethernet), after: {
                try ip.run(["-n", a, "route", "add", "default", "via", "10.77.0.2"])
            }, expected: &expected)
            try await recorder.expect(.unreachable, after: {
                try ip.run(["-n", a, "route", "del", "default"])
            }, expected: &expected)
            try await recorder.expect(.reachable(via: .loopbackOnly), after: {
                try ip.run(["-n", a, "link", "del", "v0"])
            }, expected: &expected)
            try await recorder.expect(.unreachable, after: {
                try ip.run(["-n", a, "link", "set", "lo", "down"])
            }, expected: &expected)
            #expect(!reachability.isReachable)
        }
    }

    /// The manager's gate driven by the kernel: a transfer started while the namespace is
    /// unreachable waits (nothing reaches the server) and completes once `lo` comes up there.
    @Test func aWaitingTransferStartsWhenTheKernelSaysReachable() async throws {
        try await NamespaceSupport.withNamespaces(1) { names in
            let reachability = try NetworkReachability(host: nil, namespacePath: ip.path(names[0]))
            defer { reachability.stopMonitoring() }
            #expect(reachability.status == .unreachable)
            return try await withServerAndManager { server, manager in
                try await manager.setWaitsForConnectivity(true, reachability: reachability)
                let transfer = Task { try await manager.data(from: server.url("/bytes/100?seed=4")) }
                #expect(await eventually { await manager.transfersWaitingForConnectivity == 1 })
                #expect(server.stats.requestCount == 0)
                try ip.run(["-n", names[0], "link", "set", "lo", "up"])
                let (body, response) = try await transfer.value
                #expect(body.count == 100 && response.statusCode == 200)
                #expect(reachability.status == .reachable(via: .loopbackOnly))
            }
        }
    }
}
