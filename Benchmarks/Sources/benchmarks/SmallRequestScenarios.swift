import BenchmarkSupport
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// small-seq and small-c16: many small GETs, sequentially or 16 in flight, in requests per second.
///
/// Contenders, each with its own session created once and reused for every round (so connections
/// are kept alive as a service would):
/// - `ours`: `SessionManager(transport: .curl).data(for:)` — the headline;
/// - `ours-urlsession`: the same on `SessionManager(transport: .urlSession)`;
/// - `raw-urlsession`: `URLSession.data(for:)` with the library's configuration;
/// - `raw-curl`: a bare libcurl multi loop on the same libcurl.so.4 (``RawCurlClient``), the limit;
/// - `raw-default`: `URLSession.data(for:)` with `.default`;
/// - opt-in (`--variants`): `raw-delegate` (a raw delegate session), the `.default`-minus-one-setting
///   sessions (small-seq), `ours-isolated`.
enum SmallRequestScenarios {
    static let defaultVariants: Set<String> = [
        ContenderKey.ours, ContenderKey.oursURLSession, ContenderKey.rawURLSession, ContenderKey.rawCurl, "raw-default",
    ]

    static func run(_ scenario: Scenario, server: BenchServer, options: Options) async throws -> ScenarioResult {
        let sequential = scenario == .smallSeq
        let width = sequential ? 1 : 16
        let count = options.smallCount
        let wanted = options.variants ?? defaultVariants
        var clients: [(name: String, client: SmallClient)] = [
            (ContenderKey.ours, .ours(SessionManager(transport: .curl))),
            (ContenderKey.oursURLSession, .ours(SessionManager(transport: .urlSession))),
            (ContenderKey.rawURLSession, .rawAsync(URLSession(configuration: Configurations.tuned()))),
            ("raw-delegate", .rawDelegate(RawDelegateClient(configuration: Configurations.tuned()))),
            ("raw-default", .rawAsync(URLSession(configuration: .default))),
        ]
        if sequential {
            for setting in Configurations.Setting.allCases {
                clients.append((setting.rawValue, .rawAsync(URLSession(configuration: Configurations.defaultWithout(setting)))))
            }
        }
        for (name, client) in clients where !wanted.contains(name) { await client.shutdown() }
        clients = clients.filter { wanted.contains($0.name) }
        let request = URLRequest(url: server.smallURL)
        let expected = BenchServer.smallBytes
        // Warm up: open connections, fault in code paths.
        for (_, client) in clients {
            try await slidingWindow(count: 4 * width + 20, width: width) { _ in
                try await client.get(request, expectedBytes: expected)
            }
        }
        let minimum = options.minimumSampleSeconds
        var variants = clients.map { name, client in
            Variant(name: name) {
                let (seconds, passes) = try await timedPasses(minimumSeconds: minimum) {
                    try await slidingWindow(count: count, width: width) { _ in
                        try await client.get(request, expectedBytes: expected)
                    }
                }
                return Sample(value: Double(count * passes) / seconds, requests: count * passes)
            }
        }
        if wanted.contains(ContenderKey.rawCurl) {
            let raw = try RawCurlClient(url: server.smallURL, width: width)
            try await raw.run(count: 4 * width + 20, expectedBytes: expected)
            variants.append(Variant(name: ContenderKey.rawCurl) {
                let (seconds, passes) = try await timedPasses(minimumSeconds: minimum) {
                    try await raw.run(count: count, expectedBytes: expected)
                }
                return Sample(value: Double(count * passes) / seconds, requests: count * passes)
            })
        }
        if wanted.contains("raw-curl-unlimited") {
            let raw = try RawCurlClient(url: server.smallURL, width: width, maxHostConnections: nil)
            try await raw.run(count: 4 * width + 20, expectedBytes: expected)
            variants.append(Variant(name: "raw-curl-unlimited") {
                let (seconds, passes) = try await timedPasses(minimumSeconds: minimum) {
                    try await raw.run(count: count, expectedBytes: expected)
                }
                return Sample(value: Double(count * passes) / seconds, requests: count * passes)
            })
        }
        if wanted.contains("ours-isolated") {
            let manager = SessionManager(transport: .curl)
            try await manager.loadIsolated(request, count: 4 * width + 20, width: width, expectedBytes: expected)
            variants.append(Variant(name: "ours-isolated") {
                let (seconds, passes) = try await timedPasses(minimumSeconds: minimum) {
                    try await manager.loadIsolated(request, count: count, width: width, expectedBytes: expected)
                }
                return Sample(value: Double(count * passes) / seconds, requests: count * passes)
            })
        }
        let (samples, cpu) = try await alternate(scenario.rawValue, variants, rounds: options.rounds, unit: "req/s")
        for (_, client) in clients { await client.shutdown() }

        var result = ScenarioResult(scenario: scenario, unit: "req/s", lowerIsBetter: false)
        result.addContenders(
            call: "data(for:)", rawURLSession: "URLSession.data(for:), the library's configuration", width: width, samples: samples, cpu: cpu
        )
        func median(_ name: String) -> Double? { samples[name].map(Measure.median) }
        func extra(_ name: String, label: String) -> ScenarioResult.Extra? {
            guard let value = median(name) else { return nil }
            return .init(key: name, label: label, value: value, ratio: result.value(ContenderKey.ours).map { $0 / value })
        }
        result.extras = [
            extra("raw-default", label: "URLSession.data(for:), .default"),
            extra("raw-delegate", label: "raw delegate session, the library's configuration"),
            extra("ours-isolated", label: "ours (curl) called from code isolated to the manager"),
            extra("raw-curl-unlimited", label: "bare libcurl loop, one connection per handle (no host limit)"),
        ].compactMap { $0 }
        let settingsMeasured = Configurations.Setting.allCases.contains { samples[$0.rawValue] != nil }
        if sequential, settingsMeasured, let plain = median("raw-default") {
            result.settings = [.init(key: "default", label: ".default", value: plain, ratio: nil)]
            for setting in Configurations.Setting.allCases {
                guard let value = median(setting.rawValue) else { continue }
                result.settings.append(.init(key: setting.rawValue, label: setting.label, value: value, ratio: value / plain))
            }
            if result.settings.count > 1, let tuned = median(ContenderKey.rawURLSession) {
                result.settings.append(.init(key: "all_off", label: "all three off (defaultConfiguration())", value: tuned, ratio: tuned / plain))
            }
        }
        result.extraCPU = ["raw-default", "raw-delegate", "ours-isolated", "raw-curl-unlimited"].compactMap { name in
            cpu[name].map { (name, Measure.median($0) * 1e6) }
        }

        if sequential {
            result.addRatioTarget("ours (curl) >= 0.5x raw libcurl", ContenderKey.ours, over: ContenderKey.rawCurl, atLeast: 0.5)
        } else {
            result.addRatioTarget("ours (curl) >= 0.75x raw libcurl", ContenderKey.ours, over: ContenderKey.rawCurl, atLeast: 0.75)
            result.addRatioTarget("ours (curl) >= 10x raw URLSession", ContenderKey.ours, over: ContenderKey.rawURLSession, atLeast: 10)
        }
        result.addRatioTarget(
            "ours (URLSession) >= 0.97x raw URLSession", ContenderKey.oursURLSession, over: ContenderKey.rawURLSession,
            atLeast: 0.97, urlSessionEra: true
        )
        if let plain = median("raw-default"), let oursURLSession = result.value(ContenderKey.oursURLSession) {
            result.targets.append(Target(
                text: "ours (URLSession) >= raw URLSession .default", measured: Format.ratio(oursURLSession / plain),
                holds: oursURLSession >= plain, urlSessionEra: true
            ))
        }
        return result
    }
}
