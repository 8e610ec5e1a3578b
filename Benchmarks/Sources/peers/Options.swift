import BenchmarkSupport
import Foundation

/// The command line of `peers`.
///
///     peers [--rounds N] [--quick] [--only a,b] [--clients a,b] [--json FILE] [--server URL]
///     peers --websocket [--rounds N] [--quick] [--only ws-echo,ws-1mib] [--clients ours,hummingbird] [--json FILE]
///
/// Hidden (the parent re-executes itself once per contender and round):
///
///     peers --child SCENARIO --client NAME --server URL --count N --bytes N --result FILE
///     peers --ws-child SCENARIO --client NAME --server WS-URL --count N --result FILE
struct Options: Sendable {
    /// Rounds: every contender runs once per round, in a child process of its own. Default 3 (5 with
    /// `--websocket`, 1 with `--quick`).
    var rounds = 3
    /// Smaller sizes for a smoke run.
    var quick = false
    /// Scenarios to run (`nil`: all).
    var only: Set<Scenario>?
    /// Contenders, in the order of the table.
    var contenders = Contender.allCases
    /// Where to write the JSON results.
    var jsonPath: String?
    /// Use this server instead of starting a LoopbackServer.
    var serverURL: URL?
    /// Set in a child process: the one measurement to make.
    var child: HTTPChildSpec?
    /// The WebSocket benchmark instead of the HTTP one (`--websocket`, or `--only` naming only
    /// WebSocket scenarios).
    var websocket = false
    /// WebSocket scenarios to run (`nil`: all).
    var wsOnly: Set<WSScenario>?
    /// WebSocket contenders, in the order of the table.
    var wsContenders = WSContender.allCases
    /// Set in a WebSocket child process: the one measurement to make.
    var wsChild: WSChildSpec?

    /// Requests of small-seq and small-c16.
    var smallCount: Int { quick ? 300 : 2_000 }
    /// Requests of small-c16 (4,000: twice small-seq, so it runs about as long).
    var concurrentCount: Int { quick ? 600 : 4_000 }
    /// Requests of batch-1000.
    var batchCount: Int { quick ? 300 : 1_000 }
    /// Body bytes of stream-1g and mixed-load.
    var bigBytes: Int { quick ? 64 << 20 : 1 << 30 }

    /// Messages one child of a WebSocket scenario echoes (after its warm-up).
    func wsCount(_ scenario: WSScenario) -> Int {
        switch scenario {
        case .echo: return quick ? 1_000 : 10_000
        case .bulk: return quick ? 32 : 256
        }
    }

    /// Requests (or bytes) one child of `scenario` handles.
    func size(of scenario: Scenario) -> Int {
        switch scenario {
        case .smallSeq: return smallCount
        case .smallC16: return concurrentCount
        case .batch1000: return batchCount
        default: return bigBytes
        }
    }

    static let usage = """
    usage: peers [options]      (from the repository root: swift run -c release --package-path Benchmarks peers)
      --rounds N       rounds; each contender runs once per round in its own child process (default 3, 5 with --websocket)
      --quick          smoke run: 300 requests (600 at 16 in flight), 64 MiB instead of 1 GiB, 1 round
      --only a,b       run only these scenarios: \(Scenario.peers.map(\.rawValue).joined(separator: ","))
      --clients a,b    only these contenders: \(Contender.allCases.map(\.rawValue).joined(separator: ","))
      --json FILE      also write the results as JSON
      --server URL     use this server (it must answer GET /bytes/N with N bytes, for N = \(BenchServer.smallBytes)
                       and the stream size) instead of an embedded LoopbackServer on 127.0.0.1
      --websocket      the WebSocket benchmark instead: \(WSScenario.allCases.map(\.rawValue).joined(separator: ",")) (for --only),
                       contenders \(WSContender.allCases.map(\.rawValue).joined(separator: ",")) (for --clients), against a SwiftNIO
                       echo server on 127.0.0.1; 5 rounds unless --rounds (--quick: 1,000 round trips, 32 MiB, 1 round)
    """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var roundsGiven = false
        var child = ChildArguments()
        var onlyNames: [String]?
        var clientNames: [String]?
        var arguments = Arguments(arguments)
        while let argument = arguments.next() {
            switch argument {
            case "--rounds": options.rounds = try arguments.count(argument); roundsGiven = true
            case "--quick": options.quick = true
            case "--json": options.jsonPath = try arguments.value(argument)
            case "--only": onlyNames = try arguments.list(argument)
            case "--clients": clientNames = try arguments.list(argument)
            case "--websocket": options.websocket = true
            case "--server": options.serverURL = try arguments.url(argument)
            case "-h", "--help": throw UsageError(nil)
            default:
                guard try child.take(argument, from: &arguments, flags: [HTTPChildSpec.flag, WSChildSpec.flag]) else {
                    throw UsageError("unknown option \(argument)")
                }
            }
        }
        if child.flag == WSChildSpec.flag { options.websocket = true }
        if let onlyNames {
            if !options.websocket, !onlyNames.isEmpty, onlyNames.allSatisfy({ WSScenario(rawValue: $0) != nil }) {
                options.websocket = true
            }
            if options.websocket {
                options.wsOnly = Set(try parseNames(onlyNames, as: WSScenario.self, what: "WebSocket scenario"))
            } else {
                let scenarios = try parseNames(onlyNames, as: Scenario.self, what: "scenario")
                if let other = scenarios.first(where: { !Scenario.peers.contains($0) }) {
                    throw UsageError("\(other.rawValue) is not a peers scenario")
                }
                options.only = Set(scenarios)
            }
        }
        if let clientNames {
            if options.websocket {
                let wanted = Set(try parseNames(clientNames, as: WSContender.self, what: "WebSocket contender"))
                options.wsContenders = WSContender.allCases.filter(wanted.contains)
            } else {
                let wanted = Set(try parseNames(clientNames, as: Contender.self, what: "contender"))
                options.contenders = Contender.allCases.filter(wanted.contains)
            }
        }
        if !roundsGiven { options.rounds = options.quick ? 1 : (options.websocket ? 5 : 3) }
        if child.flag == WSChildSpec.flag {
            options.wsChild = try WSChildSpec(child, server: options.serverURL)
        } else if child.flag != nil {
            options.child = try HTTPChildSpec(child, server: options.serverURL)
        }
        return options
    }

    func includes(_ scenario: Scenario) -> Bool {
        only?.contains(scenario) ?? true
    }
}

extension Scenario {
    var unit: String {
        switch self {
        case .smallSeq, .smallC16, .batch1000: return "req/s"
        case .mixedLoad: return "ms"
        default: return "MB/s"
        }
    }

    var lowerIsBetter: Bool { self == .mixedLoad }
    var isRequestScenario: Bool { unit == "req/s" }
}

/// The clients compared.
enum Contender: String, CaseIterable, Sendable, Hashable, Codable {
    /// AsyncNetworking, `SessionManager()`: the curl transport, Linux's default.
    case ours
    /// AsyncNetworking, `SessionManager(transport: .urlSession)`.
    case oursURLSession = "ours-urlsession"
    /// AsyncNetworking, `SessionManager()` through the native path: `fetch(_:)` and
    /// `fetch(_:width:)`, which answer with an `HTTPResponseHead` instead of an `HTTPURLResponse`
    /// (the stream scenarios are the same calls as `ours`).
    case oursNative = "ours-native"
    /// AsyncHTTPClient 1.37.0, `HTTPClient(eventLoopGroupProvider: .singleton)`.
    case ahc
}
