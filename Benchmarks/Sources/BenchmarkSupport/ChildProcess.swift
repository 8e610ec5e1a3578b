import Foundation

/// What a child process reports back: one measurement of one contender, and its own peak RSS.
package struct ChildReport: Codable, Sendable {
    /// The scenario's figure: req/s or msg/s for request scenarios, MB/s (10^6 bytes per second)
    /// for the 1 GiB ones, the busy p99 (ms) for mixed-load in `peers`.
    package var value: Double
    /// Wall-clock seconds of the measured part.
    package var seconds: Double
    /// CPU seconds (user + system, every thread) the child used in the measured part: the client
    /// alone, since the server runs in the parent.
    package var cpuSeconds: Double
    /// `VmHWM` at the end: the child's peak resident set size, KiB.
    package var peakRSSKiB: Int
    /// mixed-load only.
    package var mixed: MixedLoadFigures?

    package init(value: Double, seconds: Double, cpuSeconds: Double, peakRSSKiB: Int = Measure.peakRSSKiB(), mixed: MixedLoadFigures? = nil) {
        self.value = value
        self.seconds = seconds
        self.cpuSeconds = cpuSeconds
        self.peakRSSKiB = peakRSSKiB
        self.mixed = mixed
    }

    /// Writes the report where the parent reads it.
    package func write(to url: URL) throws {
        try JSONEncoder().encode(self).write(to: url)
    }
}

extension [ChildReport] {
    /// The median of `figure` over the reports (rounds); NaN for none.
    package func median(_ figure: (ChildReport) -> Double) -> Double {
        Measure.median(map(figure))
    }

    /// The median value over rounds; NaN for none.
    package var medianValue: Double { median(\.value) }

    /// Peak RSS of the worst round, MiB; NaN for none.
    package var peakRSSMiB: Double {
        isEmpty ? .nan : Double(map(\.peakRSSKiB).max() ?? 0) / 1024
    }

    /// The mixed-load figures of every round that has them.
    package var mixed: [MixedLoadFigures] { compactMap(\.mixed) }
}

/// Re-executes this binary as a child for one measurement and reads the report it wrote.
package enum ChildProcess {
    /// Runs this binary with `arguments` and decodes the ``ChildReport`` it wrote to `result`
    /// (then removes the file). `name` names the child in an error.
    package static func run(arguments: [String], result: URL, name: String) async throws -> ChildReport {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        defer { try? FileManager.default.removeItem(at: result) }
        guard status == 0 else {
            throw BenchmarkError("child \(name) exited with status \(status)")
        }
        return try JSONDecoder().decode(ChildReport.self, from: Data(contentsOf: result))
    }
}

/// Runs `body` and turns its outcome into an exit status, logging a failure as `<name>: <error>`
/// (a child's measurement, or a benchmark that runs alone).
package func exitStatus(_ name: String, _ body: () async throws -> Void) async -> Int32 {
    do {
        try await body()
        return 0
    } catch {
        log("\(name): \(error)")
        return 1
    }
}

/// A server a run starts in the parent and stops at its end.
package protocol RunServer: Sendable {
    func stop()
}

extension BenchServer: RunServer {}

/// Creates a scratch folder and starts a server for one run, runs `body`, then stops the server and
/// removes the folder; 1 (logged as `<program>: cannot start: …`) if either cannot be made.
package func withRunServer<Server: RunServer>(
    _ program: String, prefix: String, start: () throws -> Server, _ body: (Server, Workdir) async -> Int32
) async -> Int32 {
    let workdir: Workdir
    let server: Server
    do {
        workdir = try Workdir(prefix: prefix)
        do {
            server = try start()
        } catch {
            workdir.remove()
            throw error
        }
    } catch {
        log("\(program): cannot start: \(error)")
        return 1
    }
    defer {
        server.stop()
        workdir.remove()
    }
    return await body(server, workdir)
}

/// A scratch folder for one run (child reports, upload sources), removed by ``remove()``.
package struct Workdir: Sendable {
    package let url: URL

    /// Creates `<tmp>/<prefix>-<UUID>`.
    package init(prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Where a child of `scenario` and `contender` in `round` writes its report.
    package func result(_ scenario: String, _ contender: String, round: Int) -> URL {
        url.appendingPathComponent("result-\(scenario)-\(contender)-\(round).json")
    }

    package func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
