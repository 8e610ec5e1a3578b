import Foundation

/// The machine a run was made on, for the tables' headers and the JSON.
package enum Machine {
    /// Cores, CPU model, memory, kernel, Swift version, load average before the run.
    package static func describe() -> String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "?")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")
            .split(separator: " ").prefix(3).joined(separator: " ")
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)
        return "\(cores) cores (nproc), \(model), \(String(format: "%.0f", memory)) GiB, Linux \(kernel), "
            + "\(swiftVersion()), load average before the run \(load)"
    }

    private static func swiftVersion() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "Swift (version unknown)" }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let range = output.range(of: #"Swift version [0-9.]+"#, options: .regularExpression) else {
            return "Swift (version unknown)"
        }
        return String(output[range])
    }

    /// Writes `data` (a JSON document) to `path` and logs it; false (logged as `<program>: …`) if it cannot.
    package static func write(_ data: () throws -> Data, to path: String, program: String) -> Bool {
        do {
            try data().write(to: URL(fileURLWithPath: path))
            log("wrote \(path)")
            return true
        } catch {
            log("\(program): cannot write \(path): \(error)")
            return false
        }
    }
}
