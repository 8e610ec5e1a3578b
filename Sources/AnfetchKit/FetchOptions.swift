import Foundation

/// Everything `anfetch` was asked to do, as parsed from its command line.
public struct FetchOptions: Sendable, Equatable {
    /// The URLs as written on the command line (and read from `-i` files), in order, duplicates removed.
    public var urls: [String] = []
    /// Files of URLs given with `-i` (read by ``URLList/load(_:)`` before running).
    public var inputFiles: [String] = []
    /// Where files go (`-o`). Default: the current directory.
    public var outputDirectory: String = "."
    /// At most this many downloads at once (`-j`). Default 4.
    public var jobs: Int = 4
    /// Continue partial files left by an interrupted run (`--resume`). Default `false`: partial files
    /// of the same names are discarded and the downloads start from byte 0.
    public var resume = false
    /// Retries after a transport failure or a 5xx/408/429 answer (`--retries`). Default 3.
    public var retries: Int = 3
    /// Idle timeout in seconds (`--timeout`): a transfer that receives nothing for this long fails.
    /// Default `nil`: the library's 60 s.
    public var timeout: Double?
    /// No progress display and no summary line (`--quiet`); failures are still reported.
    public var quiet = false
    /// Print a JSON summary on stdout (`--json`).
    public var json = false
    /// Public-key pins (`--pin sha256//…`); when any is given, only HTTPS servers with one of
    /// these keys are accepted.
    public var pins: [String] = []
    /// Extra request headers (`-H 'Name: value'`), in order.
    public var headers: [Header] = []
    /// Overwrite existing files (`--force`).
    public var force = false
    /// Record every request and response of the run as HAR 1.2 into this file (`--har FILE`),
    /// secrets redacted (``AsyncNetworking/HARRecorder``). Default `nil`: no recording.
    public var harFile: String?

    /// A request header given with `-H`.
    public struct Header: Sendable, Equatable {
        /// The field name.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a header.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// All defaults, no URL.
    public init() {}
}

/// What the command line asks for.
public enum Command: Sendable, Equatable {
    /// `-h` / `--help`: print the help text.
    case help
    /// No URL and no `-i`: print the short usage (which mentions `--demo`).
    case usage
    /// `--demo`: run against an in-process `LoopbackServer` (the other options apply).
    case demo(FetchOptions)
    /// Download the URLs.
    case fetch(FetchOptions)
}

/// A command line `anfetch` cannot run, with the sentence to show.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in plain words.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
