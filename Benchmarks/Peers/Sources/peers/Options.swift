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
    var child: ChildSpec?
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
        case .batch: return batchCount
        case .stream1g, .mixedLoad: return bigBytes
        }
    }

    static let usage = """
    usage: peers [options]      (from the repository root: swift run -c release --package-path Benchmarks/Peers)
      --rounds N       rounds; each contender runs once per round in its own child process (default 3, 5 with --websocket)
      --quick          smoke run: 300 requests (600 at 16 in flight), 64 MiB instead of 1 GiB, 1 round
      --only a,b       run only these scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ","))
      --clients a,b    only these contenders: \(Contender.allCases.map(\.rawValue).joined(separator: ","))
      --json FILE      also write the results as JSON
      --server URL     use this server (it must answer GET /bytes/N with N bytes, for N = \(Endpoints.smallBytes)
                       and the stream size) instead of an embedded LoopbackServer on 127.0.0.1
      --websocket      the WebSocket benchmark instead: \(WSScenario.allCases.map(\.rawValue).joined(separator: ",")) (for --only),
                       contenders \(WSContender.allCases.map(\.rawValue).joined(separator: ",")) (for --clients), against a SwiftNIO
                       echo server on 127.0.0.1; 5 rounds unless --rounds (--quick: 1,000 round trips, 32 MiB, 1 round)
    """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var roundsGiven = false
        var childScenario: String?
        var childClient: String?
        var childCount: Int?
        var childResult: String?
        var wsChildScenario: String?
        var onlyNames: [String]?
        var clientNames: [String]?
        var index = 0
        func value(_ name: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(name) needs a value") }
            return arguments[index]
        }
        func count(_ name: String) throws(UsageError) -> Int {
            let text = try value(name)
            guard let number = Int(text), number > 0 else { throw UsageError("\(name) needs a positive number, not \(text)") }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--rounds": options.rounds = try count(argument); roundsGiven = true
            case "--quick": options.quick = true
            case "--json": options.jsonPath = try value(argument)
            case "--only": onlyNames = try value(argument).split(separator: ",").map(String.init)
            case "--clients": clientNames = try value(argument).split(separator: ",").map(String.init)
            case "--websocket": options.websocket = true
            case "--ws-child": wsChildScenario = try value(argument); options.websocket = true
            case "--server":
                let text = try value(argument)
                guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text), url.scheme != nil else {
                    throw UsageError("--server needs a URL, not \(text)")
                }
                options.serverURL = url
            case "--child": childScenario = try value(argument)
            case "--client": childClient = try value(argument)
            case "--count", "--bytes": childCount = try count(argument)
            case "--result": childResult = try value(argument)
            case "-h", "--help": throw UsageError(nil)
            default: throw UsageError("unknown option \(argument)")
            }
            index += 1
        }
        if let onlyNames {
            if !options.websocket, !onlyNames.isEmpty, onlyNames.allSatisfy({ WSScenario(rawValue: $0) != nil }) {
                options.websocket = true
            }
            if options.websocket {
                var scenarios = Set<WSScenario>()
                for name in onlyNames {
                    guard let scenario = WSScenario(rawValue: name) else { throw UsageError("unknown WebSocket scenario \(name)") }
                    scenarios.insert(scenario)
                }
                options.wsOnly = scenarios
            } else {
                var scenarios = Set<Scenario>()
                for name in onlyNames {
                    guard let scenario = Scenario(rawValue: name) else { throw UsageError("unknown scenario \(name)") }
                    scenarios.insert(scenario)
                }
                options.only = scenarios
            }
        }
        if let clientNames {
            if options.websocket {
                var wanted = Set<WSContender>()
                for name in clientNames {
                    guard let contender = WSContender(rawValue: name) else { throw UsageError("unknown WebSocket contender \(name)") }
                    wanted.insert(contender)
                }
                options.wsContenders = WSContender.allCases.filter(wanted.contains)
            } else {
                var wanted = Set<Contender>()
                for name in clientNames {
                    guard let contender = Contender(rawValue: name) else { throw UsageError("unknown contender \(name)") }
                    wanted.insert(contender)
                }
                options.contenders = Contender.allCases.filter(wanted.contains)
            }
        }
        if !roundsGiven { options.rounds = options.quick ? 1 : (options.websocket ? 5 : 3) }
        if let wsChildScenario {
            guard let scenario = WSScenario(rawValue: wsChildScenario),
                  let contender = childClient.flatMap(WSContender.init(rawValue:)),
                  let server = options.serverURL, let count = childCount, let result = childResult
            else { throw UsageError("incomplete --ws-child invocation") }
            options.wsChild = WSChildSpec(
                scenario: scenario, contender: contender, server: server.absoluteString, count: count,
                result: URL(fileURLWithPath: result)
            )
            return options
        }
        if let childScenario {
            guard let scenario = Scenario(rawValue: childScenario),
                  let contender = childClient.flatMap(Contender.init(rawValue:)),
                  let server = options.serverURL, let size = childCount, let result = childResult
            else { throw UsageError("incomplete --child invocation") }
            options.child = ChildSpec(
                scenario: scenario, contender: contender, server: server, size: size,
                result: URL(fileURLWithPath: result)
            )
        }
        return options
    }

    func includes(_ scenario: Scenario) -> Bool {
        only?.contains(scenario) ?? true
    }
}

/// A bad command line; `message` is nil for `--help`.
struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}

/// The scenarios, in the order they run and are reported.
enum Scenario: String, CaseIterable, Sendable, Hashable {
    case smallSeq = "small-seq"
    case smallC16 = "small-c16"
    case batch = "batch-1000"
    case stream1g = "stream-1g"
    case mixedLoad = "mixed-load"

    /// In flight at once: 1, 16, or the batch width.
    var width: Int {
        switch self {
        case .smallSeq, .stream1g, .mixedLoad: return 1
        case .smallC16: return 16
        case .batch: return 8
        }
    }

    var unit: String {
        switch self {
        case .smallSeq, .smallC16, .batch: return "req/s"
        case .stream1g: return "MB/s"
        case .mixedLoad: return "ms"
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

/// What a child process measures: one contender in one scenario, once.
struct ChildSpec: Sendable {
    let scenario: Scenario
    let contender: Contender
    let server: URL
    /// Requests, or body bytes for stream-1g and mixed-load.
    let size: Int
    /// Where the child writes its ``ChildReport`` as JSON.
    let result: URL
}
