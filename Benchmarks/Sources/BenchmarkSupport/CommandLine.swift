import Foundation

/// A bad command line; `message` is nil for `--help`.
package struct UsageError: Error {
    package let message: String?
    package init(_ message: String?) { self.message = message }
}

/// Reads a command line one argument at a time, with the values options take.
package struct Arguments {
    private let arguments: [String]
    private var index = -1

    /// `arguments` without the program name.
    package init(_ arguments: [String]) {
        self.arguments = arguments
    }

    /// The next argument, or nil at the end.
    package mutating func next() -> String? {
        index += 1
        return index < arguments.count ? arguments[index] : nil
    }

    /// The value of option `name` (the next argument).
    package mutating func value(_ name: String) throws(UsageError) -> String {
        guard let value = next() else { throw UsageError("\(name) needs a value") }
        return value
    }

    /// A positive whole number.
    package mutating func count(_ name: String) throws(UsageError) -> Int {
        let text = try value(name)
        guard let number = Int(text), number > 0 else { throw UsageError("\(name) needs a positive number, not \(text)") }
        return number
    }

    /// A comma-separated list (`a,b`).
    package mutating func list(_ name: String) throws(UsageError) -> [String] {
        try value(name).split(separator: ",").map(String.init)
    }

    /// A URL with a scheme, without a trailing slash (`--server`).
    package mutating func url(_ name: String) throws(UsageError) -> URL {
        let text = try value(name)
        guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text), url.scheme != nil else {
            throw UsageError("\(name) needs a URL, not \(text)")
        }
        return url
    }
}

/// The hidden options with which a parent runs this binary as a child for one measurement:
/// `--child SCENARIO` (or another flag of `flags`), `--mode NAME` or `--client NAME`, `--bytes N` or
/// `--count N`, `--workdir DIR`, `--result FILE` (the server is the run's own `--server URL`).
package struct ChildArguments {
    /// The flag that named the scenario; nil when this is not a child.
    package private(set) var flag: String?
    package private(set) var scenario: String?
    package private(set) var contender: String?
    package private(set) var size: Int?
    package private(set) var workdir: String?
    package private(set) var result: String?

    package init() {}

    /// Takes `argument` (and its value from `arguments`) if it is a child option: false if not.
    package mutating func take(_ argument: String, from arguments: inout Arguments, flags: Set<String> = ["--child"]) throws(UsageError) -> Bool {
        switch argument {
        case _ where flags.contains(argument): (flag, scenario) = (argument, try arguments.value(argument))
        case "--mode", "--client": contender = try arguments.value(argument)
        case "--bytes", "--count": size = try arguments.count(argument)
        case "--workdir": workdir = try arguments.value(argument)
        case "--result": result = try arguments.value(argument)
        default: return false
        }
        return true
    }

    /// The error for a child invocation that lacks one of its options.
    package var incomplete: UsageError {
        UsageError("incomplete \(flag ?? "--child") invocation")
    }
}

/// Names in a list that `Kind(rawValue:)` accepts, or a usage error naming the first that is not.
package func parseNames<Kind: RawRepresentable>(_ names: [String], as _: Kind.Type, what: String) throws(UsageError) -> [Kind]
where Kind.RawValue == String {
    var kinds: [Kind] = []
    for name in names {
        guard let kind = Kind(rawValue: name) else { throw UsageError("unknown \(what) \(name)") }
        kinds.append(kind)
    }
    return kinds
}

/// The whole of a benchmark's `main.swift`: parses the command line, prints the usage for
/// `--help` (exit 0) or the error and the usage for a bad one (exit 2), else exits with what `run` returns.
package func runBenchmark<Options: Sendable>(
    _ program: String, usage: String,
    parse: ([String]) throws(UsageError) -> Options,
    run: @Sendable (Options) async -> Int32
) async -> Never {
    let options: Options
    do {
        options = try parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        guard let message = error.message else {
            print(usage)
            exit(0)
        }
        log("\(program): \(message)\n\(usage)")
        exit(2)
    }
    exit(await run(options))
}
