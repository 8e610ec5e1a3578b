import BenchmarkSupport
import Foundation

/// A family of scenarios measured in child processes.
protocol ChildScenario: RawRepresentable, Sendable where RawValue == String {
    /// The option that makes this binary a child of the family.
    static var childFlag: String { get }
}

extension Scenario: ChildScenario {
    static var childFlag: String { "--child" }
}

extension WSScenario: ChildScenario {
    static var childFlag: String { "--ws-child" }
}

/// What a child process measures: one contender in one scenario, once.
struct ChildSpec<Scenario: ChildScenario, Contender: RawRepresentable & Sendable>: Sendable where Contender.RawValue == String {
    let scenario: Scenario
    let contender: Contender
    /// The HTTP server's base URL, or `ws://127.0.0.1:PORT/echo`.
    let server: String
    /// Requests, body bytes (stream-1g and mixed-load) or messages.
    let size: Int
    /// Where the child writes its ``ChildReport`` as JSON.
    let result: URL

    init(scenario: Scenario, contender: Contender, server: String, size: Int, result: URL) {
        self.scenario = scenario
        self.contender = contender
        self.server = server
        self.size = size
        self.result = result
    }

    /// The flag that makes this binary such a child.
    static var flag: String { Scenario.childFlag }

    /// The child's side of the command line: `FLAG SCENARIO --client NAME --server URL --count N --result FILE`.
    init(_ arguments: ChildArguments, server: URL?) throws(UsageError) {
        guard let scenario = arguments.scenario.flatMap(Scenario.init(rawValue:)),
              let contender = arguments.contender.flatMap(Contender.init(rawValue:)),
              let server, let size = arguments.size, let result = arguments.result
        else { throw arguments.incomplete }
        self.init(scenario: scenario, contender: contender, server: server.absoluteString, size: size, result: URL(fileURLWithPath: result))
    }

    /// The child process's work (`body`) and its exit status.
    func main(_ body: (Self) async throws -> Void) async -> Int32 {
        await exitStatus("peers child \(scenario.rawValue) \(contender.rawValue)") { try await body(self) }
    }

    /// The parent's side: runs this binary as the child and reads its report.
    func run() async throws -> ChildReport {
        try await ChildProcess.run(
            arguments: [
                Scenario.childFlag, scenario.rawValue, "--client", contender.rawValue,
                "--server", server, "--count", String(size), "--result", result.path,
            ],
            result: result, name: "\(scenario.rawValue) --client \(contender.rawValue)"
        )
    }
}

/// The HTTP scenarios' child.
typealias HTTPChildSpec = ChildSpec<Scenario, Contender>
/// The WebSocket scenarios' child.
typealias WSChildSpec = ChildSpec<WSScenario, WSContender>
