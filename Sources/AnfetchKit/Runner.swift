import AsyncNetworking
import Foundation

/// What a run did.
public struct RunReport: Sendable {
    /// One result per URL, in input order.
    public var results: [FetchResult]
    /// Whether the run was cancelled (Ctrl-C) before every URL finished.
    public var interrupted: Bool
    /// Wall-clock seconds of the run.
    public var seconds: Double
}

/// Runs the downloads of one command line: plans the file names, downloads at most `jobs` at once
/// as a library batch (`settledBatch`), and keeps the display up to date.
///
/// Cancelling the task that awaits ``run(_:)`` (Ctrl-C does that) cancels every download; resumable
/// partial files stay on disk and their URLs come back as ``FetchResult/Outcome/interrupted`` or
/// ``FetchResult/Outcome/notStarted``.
public struct Runner: Sendable {
    /// The options.
    public let options: FetchOptions
    /// Where progress and messages go.
    public let console: Console

    /// A runner for `options`, showing progress on `console`.
    public init(options: FetchOptions, console: Console) {
        self.options = options
        self.console = console
    }

    /// Chooses each URL's file: its sanitised URL name in `directory`, numbered when taken (see
    /// ``NameClaims``). Invalid URLs get no file.
    public static func plan(_ urls: [String], in directory: URL, force: Bool, claims: inout NameClaims) -> [FetchJob] {
        urls.enumerated().map { index, text in
            guard let url = URLList.downloadableURL(text) else { return FetchJob(index: index, text: text, url: nil, target: nil) }
            let name = claims.claim(FileNaming.name(for: url), force: force) {
                FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
            }
            return FetchJob(index: index, text: text, url: url, target: directory.appendingPathComponent(name))
        }
    }

    /// Downloads `urls` and returns what happened. Suspends until every download has ended.
    public func run(_ urls: [String]) async -> RunReport {
        let directory = URL(fileURLWithPath: options.outputDirectory, isDirectory: true).standardizedFileURL
        var claims = NameClaims()
        let jobs = Self.plan(urls, in: directory, force: options.force, claims: &claims)
        let board = ProgressBoard(count: jobs.count)
        let downloader = Downloader(options: options, board: board, console: console, claims: SanitizedMutex(claims))
        var policy = SecurityPolicy.default
        if !options.pins.isEmpty {
            let pins = options.pins.compactMap { try? PublicKeyPin($0) }
            policy = SecurityPolicy(evaluation: .pinnedPublicKeys(pins), requiresHTTPS: true)
        }
        // URLSession's default of 6 connections per host would quietly cap -j for one server.
        let configuration = SessionManager.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = max(configuration.httpMaximumConnectionsPerHost, options.jobs)
        let manager = SessionManager(configuration: configuration, maxConcurrentTransfers: options.jobs, securityPolicy: policy)
        let har = options.harFile.map { _ in HARRecorder(creatorName: "anfetch") }
        let recording = await har?.record(manager)
        let started = board.now

        let results = await withTaskGroup(of: [FetchResult]?.self) { group in
            group.addTask {
                let settled = await manager.settledBatch(jobs, width: options.jobs) { manager, job in
                    await downloader.fetch(job, manager: manager)
                }
                return zip(jobs, settled).map { job, outcome in
                    (try? outcome.get()) ?? FetchResult(
                        url: URLList.redacted(job.text), path: job.target?.path, bytes: 0, httpStatus: nil,
                        outcome: .notStarted, error: "not started", seconds: 0, bytesTransferred: 0
                    )
                }
            }
            group.addTask { await display(board); return nil }
            var collected: [FetchResult] = []
            for await value in group {
                if let value {
                    collected = value
                    group.cancelAll()  // stops the display
                }
            }
            return collected
        }
        await manager.invalidateAndCancel()
        if let har, let file = options.harFile {
            await recording?.value // the activity stream ends once the manager is invalidated
            do {
                try har.write(to: URL(fileURLWithPath: file))
            } catch {
                console.log("anfetch: cannot write the HAR file \(file): \(error.localizedDescription)")
            }
        }
        console.finish()
        let interrupted = results.contains { $0.outcome == .interrupted || $0.outcome == .notStarted }
        return RunReport(results: results, interrupted: interrupted, seconds: board.now - started)
    }

    /// Redraws the display until cancelled: 10 times a second on a terminal, once every 2 s otherwise.
    private func display(_ board: ProgressBoard) async {
        switch console.mode {
        case .silent:
            return
        case .live:
            while !Task.isCancelled {
                console.draw(ProgressRenderer.lines(for: board.snapshot(), width: console.width, height: console.height))
                try? await Task.sleep(for: .milliseconds(100))
            }
        case .plain:
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                if Task.isCancelled { return }
                console.log(ProgressRenderer.plainLine(for: board.snapshot()))
            }
        }
    }
}
