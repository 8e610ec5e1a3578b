import Foundation

/// A manager's policies: one per listed host, and a default for every other host (as Alamofire's
/// `ServerTrustManager`, but with a default instead of a failure for unlisted hosts).
package struct SecurityPolicyTable: Sendable, Hashable {
    /// The policy of every host not listed.
    package var defaultPolicy: SecurityPolicy
    /// Policies by lowercased host name, or by `*.suffix` for every subdomain of `suffix`.
    package var byHost: [String: SecurityPolicy] = [:]

    package init(defaultPolicy: SecurityPolicy) {
        self.defaultPolicy = defaultPolicy
    }

    /// The policy for `host`: an exact entry, else the closest `*.` wildcard entry, else the default.
    package func policy(forHost host: String?) -> SecurityPolicy {
        // No per-host entry (the common case): no host to normalize or look up.
        if byHost.isEmpty { return defaultPolicy }
        guard let host = host.map(Self.normalized), !host.isEmpty else { return defaultPolicy }
        if let exact = byHost[host] { return exact }
        var labels = host.split(separator: ".", omittingEmptySubsequences: false).dropFirst()
        while !labels.isEmpty {
            if let wildcard = byHost["*." + labels.joined(separator: ".")] { return wildcard }
            labels = labels.dropFirst()
        }
        return defaultPolicy
    }

    /// Lowercased, without the brackets of an IPv6 literal or a trailing dot.
    package static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// `localhost` (and its subdomains), `127.0.0.0/8` and `::1`.
    package static func isLoopback(_ host: String?) -> Bool {
        guard let host = host.map(normalized) else { return false }
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let octets = host.split(separator: ".")
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
