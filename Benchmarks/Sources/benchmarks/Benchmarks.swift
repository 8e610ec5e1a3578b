import Foundation

/// The run: a child measurement, or every selected scenario and the report.
enum Benchmarks {
    @concurrent
    static func main(_ options: Options) async -> Int32 {
        if let child = options.child {
            do {
                try await ChildRunner.run(child)
                return 0
            } catch {
                log("benchmarks child \(child.scenario.rawValue) \(child.mode.rawValue): \(error)")
                return 1
            }
        }
        if options.serve {
            do {
                let server = try BenchServer(url: nil)
                FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + "\n").utf8))
                while true { try await Task.sleep(for: .seconds(3600)) }
            } catch {
                log("benchmarks --serve: \(error)")
                return 1
            }
        }
        if options.tls {
            return await TLSBenchmark.run(options)
        }
        if options.heldStreams {
            return await HeldStreamsBenchmark.run(options)
        }
        if options.twoDownloads {
            return await TwoDownloadsBenchmark.run(options)
        }
        if let scenario = options.trace {
            do {
                try await Trace.run(scenario, rawMode: options.traceRaw, options: options)
                return 0
            } catch {
                log("benchmarks --trace: \(error)")
                return 1
            }
        }
        let header = "AsyncNetworking benchmarks — \(Report.machine())\nlibcurl: \(Report.curlVersion())"
        log(header)
        let workdir = FileManager.default.temporaryDirectory
            .appendingPathComponent("asyncnetworking-bench-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: workdir, withIntermediateDirectories: true)
        } catch {
            log("benchmarks: cannot create \(workdir.path): \(error)")
            return 1
        }
        defer { try? FileManager.default.removeItem(at: workdir) }
        let server: BenchServer
        do {
            server = try BenchServer(url: options.serverURL)
        } catch {
            log("benchmarks: cannot start the loopback server: \(error)")
            return 1
        }
        defer { server.stop() }
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
        if let path = options.jsonPath {
            do {
                try Report.writeJSON(results, to: path)
                log("wrote \(path)")
            } catch {
                log("benchmarks: cannot write \(path): \(error)")
                return 1
            }
        }
        return 0
    }
}
