import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `anfetch` command: parses the arguments, runs the downloads (or the demo) with Ctrl-C
/// handling, prints the summary and returns the exit status. `Sources/anfetch/main.swift` only
/// calls ``main(_:program:)``.
public enum Anfetch {
    /// Runs the command line `arguments` (without the program name) and returns the exit status:
    /// 0 when every URL succeeded, 1 when any failed, 2 for a bad command line, 130 after Ctrl-C.
    public static func main(_ arguments: [String], program: String = "anfetch") async -> Int32 {
        let command: Command
        do {
            command = try ArgumentParser.parse(arguments)
        } catch {
            Terminal.write("anfetch: \(error.message)\n", to: STDERR_FILENO)
            return 2
        }
        switch command {
        case .help:
            Terminal.write(ArgumentParser.help + "\n", to: STDOUT_FILENO)
            return 0
        case .usage:
            Terminal.write(ArgumentParser.usage + "\n", to: STDERR_FILENO)
            return 2
        case .demo(let options):
            return await Demo.run(options, program: program)
        case .fetch(var options):
            do {
                options.urls = URLList.removingDuplicates(options.urls + (try URLList.load(options.inputFiles)))
            } catch {
                Terminal.write("anfetch: \(error.message)\n", to: STDERR_FILENO)
                return 2
            }
            guard !options.urls.isEmpty else {
                Terminal.write("anfetch: no URL given (the -i file holds none)\n", to: STDERR_FILENO)
                return 2
            }
            let report = await runInterruptibly(options)
            return finish(report, options: options, program: program)
        }
    }

    /// The console `options` ask for: nothing with `--quiet`; with `--json` (which owns stdout) the
    /// display goes to stderr when it is a terminal; else live on a terminal, plain lines otherwise.
    public static func console(for options: FetchOptions) -> Console {
        if options.quiet { return Console(mode: .silent, descriptor: STDOUT_FILENO) }
        if options.json {
            return Console(mode: Terminal.isTerminal(STDERR_FILENO) ? .live : .silent, descriptor: STDERR_FILENO)
        }
        return Console(mode: Terminal.isTerminal(STDOUT_FILENO) ? .live : .plain, descriptor: STDOUT_FILENO)
    }

    /// Runs the downloads in a task that the first Ctrl-C cancels (a second one exits at once).
    static func runInterruptibly(_ options: FetchOptions) async -> RunReport {
        let console = console(for: options)
        let work = Task { await Runner(options: options, console: console).run(options.urls) }
        let trap = SignalTrap(onInterrupt: { work.cancel() }, onSecondInterrupt: {
            console.finish()
            Terminal.write("\nanfetch: stopped at once (second Ctrl-C)\n", to: STDERR_FILENO)
            exit(130)
        })
        let report = await work.value
        trap.cancel()
        return report
    }

    /// Prints the summary, the failures and (after Ctrl-C) the resume command; returns the exit status.
    static func finish(_ report: RunReport, options: FetchOptions, program: String, offerResume: Bool = true) -> Int32 {
        if options.json {
            Terminal.write(Summary.json(report.results, seconds: report.seconds) + "\n", to: STDOUT_FILENO)
        } else if !options.quiet {
            Terminal.write(Summary.line(report.results, seconds: report.seconds) + "\n", to: STDOUT_FILENO)
        }
        for line in Summary.failureLines(report.results) {
            Terminal.write("anfetch: \(line)\n", to: STDERR_FILENO)
        }
        if report.interrupted && !offerResume {
            Terminal.write("anfetch: interrupted\n", to: STDERR_FILENO)
        } else if report.interrupted {
            let kept = report.results.filter { $0.outcome == .interrupted && $0.bytes > 0 }.count
            var text = "anfetch: interrupted; \(kept) partial file\(kept == 1 ? "" : "s") kept"
            if let command = Summary.resumeCommand(program: program, options: options, results: report.results, urls: options.urls) {
                text += ". To resume:\n  \(command)"
                if options.headers.contains(where: { Summary.isSecret($0.name) }) {
                    text += "\n  (replace <redacted> with the header's value)"
                }
            }
            Terminal.write(text + "\n", to: STDERR_FILENO)
        }
        return Summary.exitStatus(report.results, interrupted: report.interrupted)
    }
}
