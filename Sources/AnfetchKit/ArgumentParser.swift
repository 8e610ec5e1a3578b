import AsyncNetworking
import Foundation

/// Parses `anfetch`'s command line by hand (no dependency): options may come before, between or
/// after the URLs, `--name=value` and `-oDIR` forms work, and `--` ends the options.
public enum ArgumentParser {
    /// The short usage shown when no URL is given.
    public static let usage = """
        usage: anfetch URL... [-o DIR] [-j N] [--resume] [--retries N] [--timeout SEC]
                              [--quiet] [--json] [--force] [--pin sha256//…] [-H 'Name: value'] [-i FILE]
                              [--har FILE]
        Downloads every URL into DIR (default: the current directory), at most N at once (default 4).
        Try it without a network: anfetch --demo     More: anfetch --help
        """

    /// The full help text.
    public static let help = """
        anfetch — download files, several at once, with live progress.

        usage: anfetch URL... [options]
               anfetch --demo            downloads from an in-process loopback server

          -o, --output DIR     directory for the files (default: the current directory)
          -j, --jobs N         at most N downloads at once (default 4)
          -i, --input FILE     read URLs from FILE, one a line ('#' starts a comment)
          -c, --resume         continue partial files (NAME.partial) left by an interrupted run
              --retries N      retry a dropped connection, a timeout, a 5xx, 408 or 429 N times (default 3)
              --timeout SEC    fail a transfer that receives nothing for SEC seconds (default 60)
          -H, --header 'Name: value'   add a request header (repeatable)
              --pin sha256//BASE64     accept only HTTPS servers with this public key (repeatable)
          -f, --force          overwrite existing files (default: a taken name gets a -1, -2… suffix)
          -q, --quiet          no progress and no summary line; failures are still reported
              --json           print a JSON summary on stdout
              --har FILE       record every request and response as HAR 1.2 in FILE (secrets redacted)
              --demo           run against an embedded LoopbackServer: mixed sizes, one slow,
                               one failing, one resumed after a dropped connection; checksums verified
          -h, --help           this text

        Names come from the URL path, or from a Content-Disposition file name (sanitised).
        Ctrl-C stops cleanly, keeps the partial files and prints the command that resumes them.
        Exit status: 0 when every URL succeeded, 1 when any failed, 2 for a bad command line,
        130 when interrupted.
        """

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``UsageError`` naming the offending argument: an unknown option, a missing or
    ///   malformed value, a header without a colon, a pin that is not `sha256//` + 32 bytes of base64.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        var options = FetchOptions()
        var demo = false
        var index = 0
        var optionsEnded = false

        func value(for name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError("\(name) needs a value (see anfetch --help)") }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                options.urls.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let (name, inline) = split(argument)
            switch name {
            case "-h", "--help": return .help
            case "--demo": demo = true
            case "-o", "--output":
                let directory = try value(for: name, inline: inline)
                guard !directory.isEmpty else { throw UsageError("\(name) needs a directory") }
                options.outputDirectory = directory
            case "-j", "--jobs":
                options.jobs = try integer(try value(for: name, inline: inline), for: name, in: 1...256)
            case "-i", "--input":
                options.inputFiles.append(try value(for: name, inline: inline))
            case "-c", "--resume": options.resume = true
            case "--retries":
                options.retries = try integer(try value(for: name, inline: inline), for: name, in: 0...100)
            case "--timeout":
                let text = try value(for: name, inline: inline)
                guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                    throw UsageError("--timeout needs a number of seconds above 0, not '\(text)'")
                }
                options.timeout = seconds
            case "-H", "--header":
                options.headers.append(try header(try value(for: name, inline: inline)))
            case "--pin":
                let text = try value(for: name, inline: inline)
                do {
                    _ = try PublicKeyPin(text)
                } catch {
                    throw UsageError("--pin needs sha256// followed by the base64 of 32 bytes, not '\(text)'")
                }
                options.pins.append(text)
            case "-f", "--force": options.force = true
            case "-q", "--quiet": options.quiet = true
            case "--json": options.json = true
            case "--har":
                let file = try value(for: name, inline: inline)
                guard !file.isEmpty else { throw UsageError("--har needs a file name") }
                options.harFile = file
            default:
                throw UsageError("unknown option \(name) (see anfetch --help)")
            }
        }
        options.urls = URLList.removingDuplicates(options.urls)
        if demo { return .demo(options) }
        if options.urls.isEmpty && options.inputFiles.isEmpty { return .usage }
        return .fetch(options)
    }

    /// `--name=value` → (`--name`, `value`); `-oDIR` → (`-o`, `DIR`) for the options that take a value.
    static func split(_ argument: String) -> (String, String?) {
        if argument.hasPrefix("--") {
            guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
            return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
        }
        let takesValue: Set<Character> = ["o", "j", "i", "H"]
        if argument.count > 2, let letter = argument.dropFirst().first, takesValue.contains(letter) {
            return ("-\(letter)", String(argument.dropFirst(2)))
        }
        return (argument, nil)
    }

    private static func integer(_ text: String, for name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("\(name) needs a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// `Name: value`, with a token name and no line breaks.
    static func header(_ text: String) throws(UsageError) -> FetchOptions.Header {
        guard let colon = text.firstIndex(of: ":") else {
            throw UsageError("-H needs 'Name: value', not '\(text)'")
        }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(token.contains) else {
            throw UsageError("-H: '\(name)' is not a valid header name")
        }
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw UsageError("-H: the value of \(name) contains a line break")
        }
        return FetchOptions.Header(name: name, value: value)
    }
}
