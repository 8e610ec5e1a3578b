import Foundation
import Testing
import LoopbackServer

/// Measures `/bytes/1 GiB` with curl. Off by default; run with
/// `LOOPBACK_CURL_BENCH=1 swift test --filter ThroughputTests` (best with `-c release`).
@Suite struct ThroughputTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LOOPBACK_CURL_BENCH"] != nil
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
    func curlDownloadSpeed() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        for path in ["/bytes/1073741824", "/bytes/1073741824?seed=1"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-s", "-o", "/dev/null", "-w", "%{speed_download} %{size_download}", server.url(path).absoluteString]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let fields = output.split(separator: " ")
            let speed = Double(fields.first ?? "") ?? 0
            print("curl \(path): \(Int(speed / 1_000_000)) MB/s (\(fields.last ?? "?") bytes)")
            #expect(fields.last == "1073741824")
            #expect(speed > 100_000_000)
        }
    }
}
