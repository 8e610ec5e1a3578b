import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// small-seq and small-c16: many small GETs, sequentially or 16 in flight, in requests per second.
///
/// Contenders, each with its own session created once and reused for every round (so connections
/// are kept alive as a service would): ours (`SessionManager.data(for:)`), raw `URLSession.data(for:)`
/// with the same configuration (the main baseline), a raw delegate session with the same
/// configuration, raw `URLSession.data(for:)` with `.default`; small-seq adds `.default` with each
/// tuned setting turned off alone.
enum SmallRequestScenarios {
    static func run(_ scenario: Scenario, server: BenchServer, options: Options) async throws -> ScenarioResult {
        let sequential = scenario == .smallSeq
        let width = sequential ? 1 : 16
        let count = options.smallCount
        var clients: [(name: String, client: SmallClient)] = [
            ("ours", .ours(SessionManager())),
            ("raw", .rawAsync(URLSession(configuration: Configurations.tuned()))),
            ("raw-delegate", .rawDelegate(RawDelegateClient(configuration: Configurations.tuned()))),
            ("raw-default", .rawAsync(URLSession(configuration: .default))),
        ]
        if sequential {
            for setting in Configurations.Setting.allCases {
                clients.append((setting.rawValue, .rawAsync(URLSession(configuration: Configurations.defaultWithout(setting)))))
            }
        }
        if let wanted = options.variants { clients = clients.filter { wanted.contains($0.name) } }
        let request = URLRequest(url: server.smallURL)
        let expected = BenchServer.smallBytes
        // Warm up: open connections, fault in code paths.
        for (_, client) in clients {
            try await slidingWindow(count: 4 * width + 20, width: width) { _ in
                try await client.get(request, expectedBytes: expected)
            }
        }
        var variants = clients.map { name, client in
            Variant(name: name) {
                let seconds = try await Measure.time {
                    try await slidingWindow(count: count, width: width) { _ in
                        try await client.get(request, expectedBytes: expected)
                    }
                }
                return Double(count) / seconds
            }
        }
        if options.variants?.contains("ours-isolated") == true {
            let manager = SessionManager()
            try await manager.loadIsolated(request, count: 4 * width + 20, width: width, expectedBytes: expected)
            variants.append(Variant(name: "ours-isolated") {
                let seconds = try await Measure.time {
                    try await manager.loadIsolated(request, count: count, width: width, expectedBytes: expected)
                }
                return Double(count) / seconds
            })
        }
        let (samples, cpu) = try await alternate(scenario, variants, rounds: options.rounds, unit: "req/s")
        for (_, client) in clients { await client.shutdown() }

        func median(_ name: String) -> Double { samples[name].map(Measure.median) ?? .nan }
        var result = ScenarioResult(
            scenario: scenario, unit: "req/s", lowerIsBetter: false,
            ours: median("ours"), baseline: median("raw"),
            baselineLabel: "URLSession.data(for:), same configuration"
        )
        result.cpuPerRequest = variants.compactMap { variant in
            cpu[variant.name].map { (variant.name, Measure.median($0) * 1e6 / Double(count)) }
        }
        result.oursSamples = samples["ours"] ?? []
        result.baselineSamples = samples["raw"] ?? []
        let plain = median("raw-default")
        func extra(_ name: String, key: String, label: String) -> ScenarioResult.Extra? {
            guard samples[name] != nil else { return nil }
            let value = median(name)
            return .init(key: key, label: label, value: value, ratio: result.ratio(against: value))
        }
        result.extras = [
            extra("raw-delegate", key: "delegate", label: "raw delegate session, same configuration"),
            extra("raw-default", key: "default", label: "URLSession.data(for:), .default"),
            extra("ours-isolated", key: "ours_isolated", label: "ours called from code isolated to the manager"),
        ].compactMap { $0 }
        if sequential, samples["raw-default"] != nil {
            result.settings = [.init(key: "default", label: ".default", value: plain, ratio: nil)]
            for setting in Configurations.Setting.allCases where samples[setting.rawValue] != nil {
                let value = median(setting.rawValue)
                result.settings.append(.init(key: setting.rawValue, label: setting.label, value: value, ratio: value / plain))
            }
            result.settings.append(.init(key: "all_off", label: "all three off (defaultConfiguration())", value: result.baseline, ratio: result.baseline / plain))
        }
        result.target = "ours >= 0.97 x raw same configuration, and >= raw .default"
        result.targetMet = result.ratio >= 0.97 && result.ratio(against: plain) >= 1
        return result
    }
}
