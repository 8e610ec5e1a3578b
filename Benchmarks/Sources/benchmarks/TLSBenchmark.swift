import BenchmarkSupport
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `benchmarks tls`: what TLS costs on the curl transport, as ratios measured in one run against
/// the same server over cleartext (``TLSBenchServer``). Sequential requests, one in flight:
///
/// - **new connection per request** (`Connection: close`; full handshakes, the server issues no
///   tickets): TCP connects per second over http, TLS handshakes per second over https, and
///   https again with an accepting ``ServerTrustEvaluator`` (what the hook costs per handshake);
/// - **one kept-alive connection**: requests per second over http and over https.
///
/// Variants alternate within each round; the table shows medians over the rounds, and the server's
/// own count of connections per request proves each variant did what it says.
enum TLSBenchmark {
    private struct Variant: Sendable {
        let name: String
        let tls: Bool
        let newConnectionEachRequest: Bool
        let evaluator: Bool
    }

    private static let variants = [
        Variant(name: "http new-conn", tls: false, newConnectionEachRequest: true, evaluator: false),
        Variant(name: "https new-conn", tls: true, newConnectionEachRequest: true, evaluator: false),
        Variant(name: "https new-conn+hook", tls: true, newConnectionEachRequest: true, evaluator: true),
        Variant(name: "http keep-alive", tls: false, newConnectionEachRequest: false, evaluator: false),
        Variant(name: "https keep-alive", tls: true, newConnectionEachRequest: false, evaluator: false),
    ]

    static func run(_ options: Options) async throws {
        let server = try TLSBenchServer()
        defer { server.stop() }
        let roots = try Certificate.certificates(contentsOf: server.caFile)
        let plain = SessionManager(transport: .curl, securityPolicy: .customRoots(roots))
        var hookedPolicy = SecurityPolicy.customRoots(roots)
        hookedPolicy.serverTrustEvaluator = ServerTrustEvaluator { context in
            context.certificateChain.isEmpty ? .reject : .accept
        }
        let hooked = SessionManager(transport: .curl, securityPolicy: hookedPolicy)
        defer { Task { await plain.invalidateAndCancel(); await hooked.invalidateAndCancel() } }

        let rounds = options.rounds
        let newCount = options.quick ? 200 : 1_000
        let keptCount = options.quick ? 1_000 : 5_000
        let header = "AsyncNetworking TLS benchmark — \(Machine.describe())\nlibcurl: \(RawCurlClient.version())\n"
            + "server: python3 asyncio, one thread, cleartext \(server.cleartextURL.absoluteString) and TLS \(server.tlsURL.absoluteString) "
            + "(EC P-256, TLS 1.3, no tickets); 64 B bodies; sequential; \(newCount) requests per new-connection sample, "
            + "\(keptCount) per keep-alive sample; \(rounds) rounds, variants alternating"
        log(header)
        var rates: [String: [Double]] = [:]
        var connectionsPerRequest: [String: Double] = [:]
        for round in 1...rounds {
            for variant in variants {
                let manager = variant.evaluator ? hooked : plain
                let base = variant.tls ? server.tlsURL : server.cleartextURL
                var request = URLRequest(url: base.appendingPathComponent("small"))
                if variant.newConnectionEachRequest { request.setValue("close", forHTTPHeaderField: "Connection") }
                let count = variant.newConnectionEachRequest ? newCount : keptCount
                try await get(request, on: manager) // warm up (and open the kept-alive connection)
                let before = try await stats(of: server, on: plain)
                let seconds = try await Measure.time {
                    for _ in 0..<count { try await get(request, on: manager) }
                }
                let after = try await stats(of: server, on: plain)
                rates[variant.name, default: []].append(Double(count) / seconds)
                // `/stats` itself uses one kept-alive cleartext connection (opened before `before`).
                connectionsPerRequest[variant.name] = Double(after.connections - before.connections) / Double(max(1, after.requests - before.requests))
                log("round \(round) \(variant.name): \(Format.number(Double(count) / seconds)) /s")
            }
        }
        var lines = [header, ""]
        lines.append(Format.pad("variant", 22) + Format.padLeft("median /s", 11) + Format.padLeft("min", 9) + Format.padLeft("max", 9) + Format.padLeft("conn/req", 10))
        for variant in variants {
            let samples = rates[variant.name] ?? [0]
            lines.append(
                Format.pad(variant.name, 22) + Format.padLeft(Format.number(Measure.median(samples)), 11)
                    + Format.padLeft(Format.number(samples.min() ?? 0), 9) + Format.padLeft(Format.number(samples.max() ?? 0), 9)
                    + Format.padLeft(String(format: "%.2f", connectionsPerRequest[variant.name] ?? 0), 10)
            )
        }
        func median(_ name: String) -> Double { Measure.median(rates[name] ?? [0]) }
        lines.append("")
        lines.append("TLS handshakes/s ÷ TCP connects/s (new connection each request): \(Format.ratio(median("https new-conn") / median("http new-conn")))")
        lines.append("TLS keep-alive req/s ÷ cleartext keep-alive req/s:              \(Format.ratio(median("https keep-alive") / median("http keep-alive")))")
        lines.append("handshakes/s with an accepting evaluator ÷ without:              \(Format.ratio(median("https new-conn+hook") / median("https new-conn")))")
        lines.append("TLS new-connection req/s ÷ TLS keep-alive req/s:                 \(Format.ratio(median("https new-conn") / median("https keep-alive")))")
        print(lines.joined(separator: "\n"))
    }

    private static func get(_ request: URLRequest, on manager: SessionManager) async throws {
        let (data, response) = try await manager.data(for: request)
        guard response.statusCode == 200, data.count == 64 else {
            throw BenchError("unexpected answer from \(request.url?.absoluteString ?? "?"): \(data.count) bytes")
        }
    }

    private static func stats(of server: TLSBenchServer, on manager: SessionManager) async throws -> (connections: Int, requests: Int) {
        let (data, _) = try await manager.data(for: URLRequest(url: server.cleartextURL.appendingPathComponent("stats")))
        var values: [String: Int] = [:]
        for field in String(decoding: data, as: UTF8.self).split(separator: " ") {
            let parts = field.split(separator: "=")
            if parts.count == 2 { values[String(parts[0])] = Int(parts[1]) }
        }
        guard let connections = values["connections"], let requests = values["requests"] else { throw BenchError("bad /stats answer") }
        return (connections, requests)
    }
}
