import BenchmarkSupport
import Foundation

/// The run: a child measurement, one of the benchmarks that run alone, or every selected scenario
/// and the report.
enum Benchmarks {
    @concurrent
    static func main(_ options: Options) async -> Int32 {
        if let child = options.child { return await ChildRunner.main(child) }
        if options.serve {
            return await exitStatus("benchmarks --serve") {
                let server = try BenchServer(url: nil)
                FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + "\n").utf8))
                while true { try await Task.sleep(for: .seconds(3600)) }
            }
        }
        if options.tls {
            return await exitStatus("benchmarks tls") { try await TLSBenchmark.run(options) }
        }
        if options.heldStreams {
            return await exitStatus("benchmarks held-streams") { try await HeldStreamsBenchmark.run(options) }
        }
        if options.sequenceUpload {
            return await exitStatus("benchmarks sequence-upload") { try await SequenceUploadBenchmark.run(options) }
        }
        if options.twoDownloads {
            return await exitStatus("benchmarks two-downloads") { try await TwoDownloadsBenchmark.run(options) }
        }
        if let scenario = options.trace {
            return await exitStatus("benchmarks --trace") {
                try await Trace.run(scenario, rawMode: options.traceRaw, options: options)
            }
        }
        let header = "AsyncNetworking benchmarks — \(Machine.describe())\nlibcurl: \(RawCurlClient.version())"
        log(header)
        return await withRunServer("benchmarks", prefix: "asyncnetworking-bench", start: { try BenchServer(url: options.serverURL) }) { server, workdir in
            await scenarios(options, server: server, workdir: workdir, header: header)
        }
    }

    /// Every selected scenario, the table on stdout and the JSON file.
    private static func scenarios(_ options: Options, server: BenchServer, workdir: Workdir, header: String) async -> Int32 {
        let sizes = "\(options.smallCount) small requests of \(BenchServer.smallBytes) B, batch of \(options.batchCount) "
            + "(repeated until \(options.minimumSampleSeconds) s per sample), "
            + "\(options.bigBytes >> 20) MiB bodies; \(options.rounds) rounds (1 GiB scenarios: \(options.bigRounds), a child process each)"
        log("server: \(server.description); \(sizes)")

        var results: [ScenarioResult] = []
        for scenario in Scenario.allCases where options.includes(scenario) {
            log("\(scenario.rawValue)…")
            do {
                let result: ScenarioResult
                switch scenario {
                case .smallSeq, .smallC16:
                    result = try await SmallRequestScenarios.run(scenario, server: server, options: options)
                case .batch1000:
                    result = try await BatchScenario.run(server: server, options: options)
                case .stream1g, .download1g, .upload1g, .slowConsumer1g:
                    result = try await MemoryScenarios.run(scenario, server: server, options: options, workdir: workdir)
                case .mixedLoad:
                    result = try await MixedLoadScenario.run(server: server, options: options, workdir: workdir)
                }
                results.append(result)
            } catch {
                log("benchmarks: \(scenario.rawValue) failed: \(error)")
                return 1
            }
        }
        print(Report.table(results, header: header + "\nserver: \(server.description); \(sizes)"))
        if let path = options.jsonPath, !Machine.write({ try Report.json(results) }, to: path, program: "benchmarks") {
            return 1
        }
        return 0
    }
}
