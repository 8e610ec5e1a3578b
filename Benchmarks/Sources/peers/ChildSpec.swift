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

    /// The child's side of the command line: `FLAG SCENARIO --client NAME --server URL --count N --result FILE`.
    init(scenario: String, client: String?, server: URL?, size: Int?, result: String?) throws(UsageError) {
        guard let scenario = Scenario(rawValue: scenario), let contender = client.flatMap(Contender.init(rawValue:)),
              let server, let size, let result
        else { throw UsageError("incomplete \(Scenario.childFlag) invocation") }
        self.init(scenario: scenario, contender: contender, server: server.absoluteString, size: size, result: URL(fileURLWithPath: result))
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
