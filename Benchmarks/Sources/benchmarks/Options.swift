import BenchmarkSupport
import AsyncNetworking
import Foundation

/// The command line of `benchmarks`.
///
///     benchmarks [--rounds N] [--big-rounds N] [--quick] [--only a,b] [--json FILE] [--server URL]
///
/// Hidden (used when the benchmark re-executes itself for a memory scenario):
///
///     benchmarks --child SCENARIO --mode ours|ours-urlsession|raw-urlsession|raw-curl --server URL --bytes N --workdir DIR --result FILE
struct Options: Sendable {
    /// Rounds of the request scenarios (small-seq, small-c16, batch-1000). Default 5 (2 with `--quick`).
    var rounds = 5
    /// Rounds of the 1 GiB scenarios (mixed-load included), each variant in a child process.
    /// Default 3 (1 with `--quick`).
    var bigRounds = 3
    /// Smaller sizes for a smoke run.
    var quick = false
    /// Scenarios to run (`nil`: all).
    var only: Set<String>?
    /// Where to write the JSON results.
    var jsonPath: String?
    /// Use this server instead of starting a LoopbackServer.
    var serverURL: URL?
    /// Set in a child process: the one measurement to make.
    var child: ChildSpec?
    /// `--variants a,b`: run only these contenders of the request scenarios (for profiling one side,
    /// or to add the opt-in ones).
    var variants: Set<String>?
    /// `--trace SCENARIO`: a memory timeline of one transfer instead of the benchmark (see ``Trace``).
    var trace: Scenario?
    /// `--serve`: only run the loopback server (print its URL, serve until killed), so one child
    /// measurement can be profiled alone with `--child … --server URL`.
    var serve = false
    /// `--trace-raw raw-spill|raw-count`: trace a raw delegate instead of ours.
    var traceRaw: String?
    /// `tls` (or `--tls`): only the TLS benchmark (see ``TLSBenchmark``).
    var tls = false
    /// `held-streams`: only the held-back streams benchmark (see ``HeldStreamsBenchmark``).
    var heldStreams = false
    /// `two-downloads`: only the two concurrent downloads benchmark (see ``TwoDownloadsBenchmark``).
    var twoDownloads = false
    /// `sequence-upload`: only the streamed `AsyncSequence` upload benchmark (see ``SequenceUploadBenchmark``).
    var sequenceUpload = false
    /// `--count N` of held-streams: transfers started. Default 100.
    var heldCount = 100
    /// `--hold S` of held-streams: seconds the unread transfers stay unread at least. Default 5.
    var holdSeconds = 5
    /// `--ca FILE`: a PEM file of roots to trust (held-streams against nginx over https).
    var caFile: String?
    /// `--drip URL` of two-downloads: a slow third download beside the two measured.
    var dripURL: URL?
    /// Whether `--rounds` was given.
    var roundsGiven = false

    /// Requests of small-seq and small-c16.
    var smallCount: Int { quick ? 300 : 2_000 }
    /// Requests of batch-1000.
    var batchCount: Int { quick ? 300 : 1_000 }
    /// Body bytes of the 1 GiB scenarios.
    var bigBytes: Int { quick ? 64 << 20 : 1 << 30 }
    /// A request-scenario sample repeats its pass (`smallCount` requests, or one batch) until this
    /// long has passed, so the raw libcurl loop is not timed over a few milliseconds.
    var minimumSampleSeconds: Double { quick ? 0.15 : 0.5 }

    static let usage = """
    usage: benchmarks [options]
           benchmarks tls [--rounds N] [--quick]
           benchmarks held-streams --server URL [--ca FILE] [--count N] [--hold S]
           benchmarks two-downloads [--server URL] [--ca FILE] [--drip URL] [--rounds N]
           benchmarks sequence-upload --server URL [--quick]
      tls              only the TLS benchmark: handshakes/s and kept-alive requests/s over https against
                       the same over http, with a local python3 TLS server and an openssl-made PKI
      held-streams     only: N streamed GETs of URL/100m.bin, the first read to its end, the others
                       unread for S s: peak RSS growth, the read stream's rate, the HTTP versions
      two-downloads    only: 1 GiB and 100 MiB downloaded to disk together (URL/1g.bin and
                       URL/100m.bin, or a LoopbackServer): slower/faster rate and longest stall
      sequence-upload  only: 1 GiB POSTed to URL/upload from an AsyncSequence of 64 KiB chunks,
                       streamed and spooled (curl), and from a file: MB/s and peak RSS growth
      --rounds N       rounds of the request scenarios (default 5, --quick: 2)
      --big-rounds N   rounds of the 1 GiB scenarios, one child process per variant (default 3, --quick: 1)
      --quick          smoke run: 300 requests, 64 MiB instead of 1 GiB
      --only a,b       run only these scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ","))
      --json FILE      also write the results as JSON
      --server URL     use this server (must serve /bytes/N and accept POST /upload) instead of
                       an embedded LoopbackServer
      --variants a,b   run only these contenders of small-seq/small-c16/batch-1000 (default: ours,
                       ours-urlsession, raw-urlsession, raw-curl, raw-default; batch: ours-taskgroup too);
                       also opt-in: raw-delegate, urlcache_off, cookies_off, credential_storage_off,
                       ours-isolated, raw-curl-unlimited (ours = the curl transport)
      --serve          profiling aid: only run the loopback server, print its URL, serve until killed
                       (then: benchmarks --child stream-1g --mode ours --server URL --bytes N
                       --workdir DIR --result FILE, e.g. under perf record -g)
      --trace NAME     diagnostic: a memory timeline of one stream-1g, slow-consumer-1g or download-1g
                       transfer on the default transport (the delegate-queue column counts only on
                       URLSession) (--trace-raw raw-count|raw-spill: a raw delegate instead of ours),
                       or of one mixed-load child flow (--trace-raw raw-count: the raw baseline's)
    """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var bigRoundsGiven = false
        var child = ChildArguments()
        var arguments = Arguments(arguments)
        while let argument = arguments.next() {
            switch argument {
            case "--rounds": options.rounds = try arguments.count(argument); options.roundsGiven = true
            case "--big-rounds": options.bigRounds = try arguments.count(argument); bigRoundsGiven = true
            case "--quick": options.quick = true
            case "tls", "--tls": options.tls = true
            case "held-streams": options.heldStreams = true
            case "two-downloads": options.twoDownloads = true
            case "sequence-upload": options.sequenceUpload = true
            case "--count": options.heldCount = try arguments.count(argument)
            case "--hold": options.holdSeconds = try arguments.count(argument)
            case "--ca": options.caFile = try arguments.value(argument)
            case "--drip": options.dripURL = try arguments.url(argument)
            case "--serve": options.serve = true
            case "--json": options.jsonPath = try arguments.value(argument)
            case "--only": options.only = Set(try parseNames(arguments.list(argument), as: Scenario.self, what: "scenario").map(\.rawValue))
            case "--server": options.serverURL = try arguments.url(argument)
            case "--variants": options.variants = Set(try arguments.list(argument))
            case "--trace": options.trace = try parseNames([arguments.value(argument)], as: Scenario.self, what: "scenario")[0]
            case "--trace-raw":
                let mode = try arguments.value(argument)
                guard mode == "raw-spill" || mode == "raw-count" else { throw UsageError("--trace-raw is raw-spill or raw-count") }
                options.traceRaw = mode
            case "-h", "--help": throw UsageError(nil)
            default: guard try child.take(argument, from: &arguments) else { throw UsageError("unknown option \(argument)") }
            }
        }
        if options.quick {
            if !options.roundsGiven { options.rounds = 2 }
            if !bigRoundsGiven { options.bigRounds = 1 }
        }
        if let childScenario = child.scenario {
            guard let scenario = Scenario(rawValue: childScenario), scenario.isMemoryScenario,
                  let mode = child.contender.flatMap(ChildSpec.Mode.init(rawValue:)),
                  let server = options.serverURL, let bytes = child.size,
                  let workdir = child.workdir, let result = child.result
            else { throw child.incomplete }
            options.child = ChildSpec(
                scenario: scenario, mode: mode, server: server, bytes: bytes,
                workdir: URL(fileURLWithPath: workdir), result: URL(fileURLWithPath: result)
            )
        }
        return options
    }

    func includes(_ scenario: Scenario) -> Bool {
        only?.contains(scenario.rawValue) ?? true
    }
}

/// What a child process measures: one variant of one memory scenario, once.
struct ChildSpec: Sendable {
    enum Mode: String, Sendable, CaseIterable {
        /// AsyncNetworking on the curl transport.
        case ours
        /// AsyncNetworking on the URLSession transport.
        case oursURLSession = "ours-urlsession"
        /// Raw URLSession.
        case baseline = "raw-urlsession"
        /// A bare libcurl loop (``RawCurlClient``, ``RawCurlMixedLoad``); stream-1g and mixed-load.
        case rawCurl = "raw-curl"
        /// AsyncNetworking on curl, its consumer running on the manager's loop thread
        /// (`withTaskExecutorPreference(manager.taskExecutor)`); stream-1g only.
        case oursOnLoop = "ours-on-loop"
    }

    /// The transport of the `ours` modes.
    var transport: SessionManager.Transport {
        mode == .oursURLSession ? .urlSession : .curl
    }

    let scenario: Scenario
    let mode: Mode
    let server: URL
    let bytes: Int
    let workdir: URL
    /// Where the child writes its ``ChildReport`` as JSON.
    let result: URL
}
