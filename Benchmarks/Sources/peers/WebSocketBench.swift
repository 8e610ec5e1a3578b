import BenchmarkSupport
import Foundation
import Synchronization

// The WebSocket benchmark (issue 24, item 6): `peers --websocket`. AsyncNetworking's
// `SessionManager().webSocket(to:)` against Hummingbird's swift-websocket 1.6.2 `WebSocketClient`,
// both talking to ``EchoServer`` (SwiftNIO, in the parent) on 127.0.0.1; each contender in a child
// process of its own, round after round in rotating order, as the HTTP scenarios run.

/// The WebSocket scenarios, in the order they run and are reported.
enum WSScenario: String, CaseIterable, Sendable, Hashable {
    /// One connection, sequential round trips of a 16-byte text message: send, await the echo.
    case echo = "ws-echo"
    /// One connection, 1 MiB binary messages echoed, ``WSScenario/window`` in flight.
    case bulk = "ws-1mib"

    /// Bytes of each message.
    var messageBytes: Int { self == .echo ? 16 : 1 << 20 }
    /// Messages in flight at once.
    var window: Int { self == .echo ? 1 : 4 }
    /// Unmeasured messages first (connection open, code paths faulted in).
    var warmUp: Int { self == .echo ? 200 : 8 }
    var unit: String { self == .echo ? "msg/s" : "MB/s" }
}

/// The WebSocket clients compared.
enum WSContender: String, CaseIterable, Sendable, Hashable {
    /// AsyncNetworking: `SessionManager().webSocket(to:)`, default ``WebSocketOptions``.
    case ours
    /// swift-websocket 1.6.2: `WebSocketClient.connect(url:configuration:logger:handler:)` on
    /// `MultiThreadedEventLoopGroup.singleton`, default configuration but `maxFrameSize` 16 MiB.
    case hummingbird
}

/// One open connection of a contender, as the workload drives it.
protocol EchoConnection {
    /// Sends the scenario's text message (the 16-byte one).
    func sendText() async throws
    /// Sends the scenario's binary message (the 1 MiB one, built once).
    func sendBinary() async throws
    /// The byte count of the next message received; throws if the connection ends first.
    mutating func receive() async throws -> Int
}

/// Wall-clock and CPU seconds of the measured part.
struct WSMeasured: Sendable {
    var seconds: Double
    var cpuSeconds: Double
}

/// The same workload for every contender.
enum EchoWorkload {
    static let text = "0123456789abcdef"

    static func run<Connection: EchoConnection>(_ scenario: WSScenario, count: Int, on connection: inout Connection) async throws -> WSMeasured {
        try await messages(scenario, count: scenario.warmUp, on: &connection)
        let cpuBefore = Measure.processCPUSeconds()
        let start = ContinuousClock.now
        try await messages(scenario, count: count, on: &connection)
        let seconds = Measure.seconds(ContinuousClock.now - start)
        return WSMeasured(seconds: seconds, cpuSeconds: Measure.processCPUSeconds() - cpuBefore)
    }

    private static func messages<Connection: EchoConnection>(_ scenario: WSScenario, count: Int, on connection: inout Connection) async throws {
        var sent = 0
        var received = 0
        func send() async throws {
            if scenario == .echo { try await connection.sendText() } else { try await connection.sendBinary() }
            sent += 1
        }
        while sent < min(scenario.window, count) { try await send() }
        while received < count {
            let bytes = try await connection.receive()
            guard bytes == scenario.messageBytes else {
                throw BenchmarkError("\(scenario.rawValue): an echo of \(bytes) bytes, expected \(scenario.messageBytes)")
            }
            received += 1
            if sent < count { try await send() }
        }
    }
}

/// The child side: connect, run the workload, write the report.
enum WebSocketChild {
    static func run(_ spec: WSChildSpec) async throws {
        let measured: WSMeasured
        switch spec.contender {
        case .ours: measured = try await OursWebSocket.run(spec)
        case .hummingbird: measured = try await HummingbirdWebSocket.run(spec)
        }
        let value: Double
        switch spec.scenario {
        case .echo: value = Double(spec.size) / measured.seconds
        case .bulk: value = Measure.megabytesPerSecond(spec.size * spec.scenario.messageBytes, seconds: measured.seconds)
        }
        try ChildReport(value: value, seconds: measured.seconds, cpuSeconds: measured.cpuSeconds).write(to: spec.result)
    }
}

/// A value set from a `@Sendable` closure and read after it ran.
final class ResultBox<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    func set(_ newValue: Value) { value.withLock { $0 = newValue } }
    func get() -> Value? { value.withLock { $0 } }
}

/// The parent: starts the echo server, runs the rounds, prints the table.
enum WebSocketBench {
    static func main(_ options: Options) async -> Int32 {
        let started = ContinuousClock.now
        let machine = Machine.describe()
        let header = "AsyncNetworking WebSockets against swift-websocket 1.6.2 (Hummingbird) — \(machine)"
        log(header)
        return await withRunServer("peers", prefix: "asyncnetworking-peers-ws", start: EchoServer.init) {
            await scenarios(options, server: $0, workdir: $1, machine: machine, header: header, started: started)
        }
    }

    /// Every selected scenario, the table on stdout and the JSON file.
    private static func scenarios(
        _ options: Options, server: EchoServer, workdir: Workdir, machine: String, header: String, started: ContinuousClock.Instant
    ) async -> Int32 {
        let contenders = options.wsContenders
        let setup = "SwiftNIO echo server (NIOWebSocketServerUpgrader, 1 event-loop thread) at \(server.url) in the parent; "
            + "ws-echo: \(options.wsCount(.echo)) sequential 16-byte text round trips; "
            + "ws-1mib: \(options.wsCount(.bulk)) binary messages of 1 MiB echoed, \(WSScenario.bulk.window) in flight; "
            + "\(options.rounds) round(s), a child process per contender and round, rotating order"
        log(setup)

        var results: [(scenario: WSScenario, reports: [WSContender: [ChildReport]])] = []
        // The parent's CPU time while each child ran (the echo server and little else), per message.
        var serverMicros: [WSScenario: [Double]] = [:]
        for scenario in WSScenario.allCases where options.wsOnly?.contains(scenario) ?? true {
            log("\(scenario.rawValue)…")
            var reports: [WSContender: [ChildReport]] = [:]
            do {
                try await rotateRounds(contenders, rounds: options.rounds, name: scenario.rawValue, unit: scenario.unit) { contender in
                    let spec = WSChildSpec(
                        scenario: scenario, contender: contender, server: server.url, size: options.wsCount(scenario),
                        result: workdir.result(scenario.rawValue, contender.rawValue, round: reports[contender, default: []].count)
                    )
                    let parentCPU = Measure.processCPUSeconds()
                    let report = try await spec.run()
                    reports[contender, default: []].append(report)
                    let messages = Double(spec.size + scenario.warmUp)
                    serverMicros[scenario, default: []].append((Measure.processCPUSeconds() - parentCPU) * 1e6 / messages)
                    return " \(contender.rawValue) \(Format.number(report.value))"
                }
            } catch {
                log("peers: \(scenario.rawValue) failed: \(error)")
                return 1
            }
            results.append((scenario, reports))
        }
        let elapsed = Measure.seconds(ContinuousClock.now - started)
        print(table(results, contenders: contenders, options: options, serverMicros: serverMicros,
                    header: header + "\n" + setup + String(format: "\nwhole run: %.0f s", elapsed)))
        if let path = options.jsonPath, !Machine.write({
            try json(results, contenders: contenders, options: options, machine: machine, setup: setup)
        }, to: path, program: "peers") {
            return 1
        }
        return 0
    }

    private static func median(_ reports: [ChildReport]?, _ value: (ChildReport) -> Double) -> Double {
        (reports ?? []).median(value)
    }

    private static func peakRSSMiB(_ reports: [ChildReport]?) -> Double {
        (reports ?? []).peakRSSMiB
    }

    private static func table(
        _ results: [(scenario: WSScenario, reports: [WSContender: [ChildReport]])], contenders: [WSContender], options: Options,
        serverMicros: [WSScenario: [Double]], header: String
    ) -> String {
        let ratio = contenders.contains(.ours) && contenders.contains(.hummingbird)
        var lines = [header, ""]
        var columns = [Format.pad("scenario", 9), Format.pad("unit", 6)]
        columns += contenders.map { Format.padLeft($0.rawValue, 12) }
        if ratio { columns.append(Format.padLeft("ours/hummingbird", 17)) }
        let cpuHeader = "   CPU µs/msg (" + contenders.map(\.rawValue).joined(separator: " / ") + ")"
        columns.append(cpuHeader)
        columns.append("   peak RSS MiB (" + contenders.map(\.rawValue).joined(separator: " / ") + ")")
        lines.append(columns.joined(separator: " "))
        for (scenario, reports) in results {
            let count = Double(options.wsCount(scenario))
            var row = [Format.pad(scenario.rawValue, 9), Format.pad(scenario.unit, 6)]
            row += contenders.map { Format.padLeft(Format.number(median(reports[$0], \.value)), 12) }
            if ratio {
                row.append(Format.padLeft(Format.ratio(median(reports[.ours], \.value) / median(reports[.hummingbird], \.value)), 17))
            }
            row.append("   " + Format.pad(contenders.map { Format.number(median(reports[$0]) { $0.cpuSeconds * 1e6 / count }) }
                .joined(separator: " / "), cpuHeader.count - 3))
            row.append("   " + contenders.map { Format.mebibytes(peakRSSMiB(reports[$0])) }.joined(separator: " / "))
            lines.append(row.joined(separator: " "))
        }
        lines.append("")
        lines.append("Medians over rounds; each contender in a child process of its own, per round. ratio > 1: ours is better.")
        lines.append("msg/s: echoed messages per second (one in flight); MB/s: 10^6 payload bytes echoed per second (each")
        lines.append("byte goes out and comes back). CPU: user + system of the client's child per echoed message, the")
        lines.append("server excluded (it runs in the parent). Peak RSS: VmHWM of the child, worst round.")
        lines.append("Contenders: ours = SessionManager().webSocket(to:), default WebSocketOptions (it validates UTF-8 of text);")
        lines.append("hummingbird = swift-websocket 1.6.2 WebSocketClient.connect, default configuration (validateUTF8 false) but")
        lines.append("maxFrameSize 16 MiB (its default of 16 KiB refuses the 1 MiB echo), inbound.messages(maxSize: 16 MiB).")
        lines.append("")
        lines.append("Echo server: CPU of the parent (the server's event loop) per message while a child ran, warm-up included,")
        lines.append("median over all children: " + results.map { result in
            "\(result.scenario.rawValue) \(Format.number(Measure.median(serverMicros[result.scenario] ?? []))) µs"
        }.joined(separator: ", ") + " — against the clients' figures above, it is not the bottleneck when lower.")
        return lines.joined(separator: "\n")
    }

    private static func json(
        _ results: [(scenario: WSScenario, reports: [WSContender: [ChildReport]])], contenders: [WSContender], options: Options,
        machine: String, setup: String
    ) throws -> Data {
        var scenarios: [String: Any] = [:]
        for (scenario, reports) in results {
            let count = Double(options.wsCount(scenario))
            var entry: [String: Any] = ["unit": scenario.unit, "messages": options.wsCount(scenario), "message_bytes": scenario.messageBytes]
            for contender in contenders {
                let key = contender.rawValue
                entry[key] = Format.rounded(median(reports[contender], \.value))
                entry["\(key)_samples"] = (reports[contender] ?? []).map { Format.rounded($0.value) }
                entry["\(key)_peak_rss_mib"] = Format.rounded(peakRSSMiB(reports[contender]))
                entry["\(key)_cpu_us_per_message"] = Format.rounded(median(reports[contender]) { $0.cpuSeconds * 1e6 / count })
            }
            if contenders.contains(.ours) && contenders.contains(.hummingbird) {
                entry["ratio_ours_over_hummingbird"] = Format.rounded(median(reports[.ours], \.value) / median(reports[.hummingbird], \.value))
            }
            scenarios[scenario.rawValue] = entry
        }
        let document: [String: Any] = ["machine": machine, "setup": setup, "scenarios": scenarios]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    }
}
