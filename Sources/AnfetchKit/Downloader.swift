import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One URL of the run, planned: its file is chosen before anything is sent.
public struct FetchJob: Sendable, Equatable {
    /// Position in the run.
    public var index: Int
    /// The URL as given.
    public var text: String
    /// The parsed URL, or `nil` when it is not a downloadable URL.
    public var url: URL?
    /// The file it goes to (named from the URL path), or `nil` for an invalid URL.
    public var target: URL?
}

/// Downloads one ``FetchJob`` through the library's public API: `downloadTask(with:to:options:)`
/// to `.file(target)` (so the partial file is the visible `NAME.partial`), resumable so a drop or a
/// Ctrl-C keeps the bytes, its events feeding the ``ProgressBoard``, retried per ``RetryPolicy``.
struct Downloader: Sendable {
    let options: FetchOptions
    let board: ProgressBoard
    let console: Console
    let claims: SanitizedMutex<NameClaims>

    func fetch(_ job: FetchJob, manager: SessionManager) async -> FetchResult {
        let started = board.now
        let shown = URLList.redacted(job.text)
        func result(_ outcome: FetchResult.Outcome, path: URL?, bytes: Int64, status: Int?, error: String?, moved: Int64) -> FetchResult {
            FetchResult(url: shown, path: path?.path, bytes: bytes, httpStatus: status, outcome: outcome, error: error,
                        seconds: board.now - started, bytesTransferred: moved)
        }
        guard let url = job.url, let target = job.target else {
            let words = URLList.whyInvalid(job.text)
            board.update { state, _ in state.finish(job.index, succeeded: false, bytes: nil) }
            return result(.failed, path: nil, bytes: 0, status: nil, error: words, moved: 0)
        }
        let partial = URL(fileURLWithPath: target.path + ".partial")
        if !options.resume {
            try? FileManager.default.removeItem(at: partial)
            try? FileManager.default.removeItem(at: URL(fileURLWithPath: partial.path + ".json"))
        }
        let keptAtStart = Self.size(of: partial) ?? 0
        var request = URLRequest(url: url)
        for header in options.headers { request.setValue(header.value, forHTTPHeaderField: header.name) }
        if let timeout = options.timeout { request.timeoutInterval = timeout }
        let downloadOptions = DownloadOptions(
            createIntermediateDirectories: true, replaceExisting: options.force, resumable: true, automaticResumeAttempts: 0
        )
        let name = target.lastPathComponent
        var attempt = 0
        var status: Int?
        while true {
            let onDisk = Self.size(of: partial) ?? 0
            let note = attempt > 0 ? "retry \(attempt)/\(options.retries)" : onDisk > 0 ? "resumed" : nil
            board.update { state, time in state.start(job.index, name: name, bytesOnDisk: onDisk, note: note, at: time) }
            do throws(NetworkingError) {
                var response: HTTPURLResponse?
                var file = target
                let handle = try await manager.downloadTask(with: request, to: .file(target), options: downloadOptions)
                for try await event in handle.events {
                    switch event {
                    case .response(let head):
                        response = head
                        status = head.statusCode
                        board.update { state, _ in state.responded(job.index) }
                    case .downloadProgress(let progress):
                        board.update { state, time in
                            state.progress(job.index, completed: progress.completedBytes, expected: progress.expectedBytes, at: time)
                        }
                    case .downloaded(let location):
                        file = location
                    default:
                        break
                    }
                }
                let final = renamedForContentDisposition(file, response: response)
                let bytes = Self.size(of: final) ?? 0
                board.update { state, _ in state.finish(job.index, succeeded: true, bytes: bytes, name: final.lastPathComponent) }
                let done = result(.ok, path: final, bytes: bytes, status: status, error: nil, moved: max(0, bytes - keptAtStart))
                console.log("done    \(final.lastPathComponent)  \(Formatting.bytes(bytes)) in \(Formatting.seconds(done.seconds))"
                            + (attempt > 0 ? " after \(attempt) \(attempt == 1 ? "retry" : "retries")" : ""))
                return done
            } catch {
                if let response = error.response { status = response.statusCode }
                let kept = Self.size(of: partial) ?? 0
                if Task.isCancelled || error.kind == .cancelled {
                    board.update { state, _ in state.finish(job.index, succeeded: false, bytes: nil) }
                    return result(.interrupted, path: target, bytes: kept, status: status, error: "interrupted", moved: max(0, kept - keptAtStart))
                }
                if RetryPolicy.shouldRetry(error, attempt: attempt, limit: options.retries) {
                    attempt += 1
                    let note = "retry \(attempt)/\(options.retries): \(FailureWords.describe(error, timeout: options.timeout))"
                    board.update { state, _ in state.note(job.index, note) }
                    do {
                        try await Task.sleep(for: RetryPolicy.delay(beforeRetry: attempt))
                    } catch {
                        board.update { state, _ in state.finish(job.index, succeeded: false, bytes: nil) }
                        return result(.interrupted, path: target, bytes: kept, status: status, error: "interrupted", moved: max(0, kept - keptAtStart))
                    }
                    continue
                }
                let words = FailureWords.describe(error, timeout: options.timeout)
                board.update { state, _ in state.finish(job.index, succeeded: false, bytes: nil) }
                    return result(.failed, path: nil, bytes: 0, status: status, error: words, moved: max(0, kept - keptAtStart))
            }
        }
    }

    /// Moves a finished file to its sanitised `Content-Disposition` name when the server gave one,
    /// under the same collision rules (never replacing a file unless `--force`). On any trouble the
    /// file keeps its URL name.
    private func renamedForContentDisposition(_ file: URL, response: HTTPURLResponse?) -> URL {
        guard let header = response?.value(forHTTPHeaderField: "Content-Disposition"),
              let suggested = FileNaming.name(contentDisposition: header), suggested != file.lastPathComponent
        else { return file }
        let directory = file.deletingLastPathComponent()
        let force = options.force
        for _ in 0..<100 {
            let name = claims.withLock { claims in
                claims.claim(suggested, force: force) { FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }
            }
            let destination = directory.appendingPathComponent(name)
            if force {
                if rename(file.path, destination.path) == 0 { return destination }
                return file
            }
            // link + unlink: an atomic "move unless the name exists".
            if link(file.path, destination.path) == 0 {
                unlink(file.path)
                return destination
            }
            if errno != EEXIST { return file }
        }
        return file
    }

    static func size(of file: URL) -> Int64? {
        var status = stat()
        guard stat(file.path, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }
}
