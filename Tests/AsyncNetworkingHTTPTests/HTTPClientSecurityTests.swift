@testable import AsyncNetworkingTestSupport

/// A security policy on the client, with AFNetworking's https rule for pinning.
@Suite("HTTPClient: security policy on the client")
struct HTTPClientSecurityTests {
    static func pin() throws -> PublicKeyPin { try PublicKeyPin("sha256//r8udi/Mxd6pLO7y7hZyUMWq8YnFnIWXCqeHsTDRqy8c=") }

    @Test func aPinningPolicyNeedsAnHTTPSBaseURLWhenTheClientIsMade() async throws {
        let manager = SessionManager()
        defer { Task { await manager.invalidateAndCancel() } }
        for baseURL in [URL(string: "http://api.example.com/v1"), nil] {
            for policy in [SecurityPolicy.pinnedPublicKeys([try Self.pin()]), .pinnedCertificates([Certificate(der: Data([0x30, 0x00]))])] {
                let error = #expect(throws: NetworkingError.self) {
                    _ = try HTTPClient(manager: manager, baseURL: baseURL, securityPolicy: policy)
                }
                #expect(error?.kind == .pinningRequiresHTTPS)
            }
        }
        // Non-pinning policies are fine over http (AFNetworking's rule is about pinning only).
        let plain = try HTTPClient(manager: manager, baseURL: URL(string: "http://api.example.com"), securityPolicy: .default)
        #expect(await plain.securityPolicy == .default)
        #expect(await manager.securityPolicy(forHost: "other.example.com") == .default)
    }

    @Test func anHTTPSClientInstallsItsPolicyForItsHostBeforeItsFirstRequest() async throws {
        let manager = SessionManager()
        let policy = SecurityPolicy.pinnedPublicKeys([try Self.pin()])
        let client = try HTTPClient(manager: manager, baseURL: URL(string: "https://API.example.com/v1"), securityPolicy: policy)
        #expect(await client.securityPolicy == policy)
        #expect(await manager.securityPolicy(forHost: "api.example.com") == policy)
        #expect(await manager.securityPolicy(forHost: "example.com") == .default, "only the base URL's host")
        #expect(client.baseURL?.absoluteString == "https://API.example.com/v1/")
        await manager.invalidateAndCancel()
    }

    @Test func theSetterChecksTheSameRuleAndLeavesThePolicyAloneOnError() async throws {
        try await withClient { server, client in
            let pinned = SecurityPolicy.pinnedPublicKeys([try Self.pin()])
            let error = await #expect(throws: NetworkingError.self) { try await client.setSecurityPolicy(pinned) }
            #expect(error?.kind == .pinningRequiresHTTPS)
            #expect(await client.securityPolicy == .default)
            // A policy that may apply over http is installed and enforced on the next request.
            try await client.setSecurityPolicy(SecurityPolicy(requiresHTTPS: true))
            #expect(await client.securityPolicy?.requiresHTTPS == true)
            let _: Echo = try await client.get("echo")   // loopback is exempt from requiresHTTPS
            #expect(server.requests.count == 1)
            let noBase = HTTPClient(manager: client.manager)
            let missing = await #expect(throws: NetworkingError.self) { try await noBase.setSecurityPolicy(.default) }
            #expect(missing?.kind == .invalidURL)
        }
    }
}
