import AsyncNetworking
import Foundation
import LoopbackServer
import Testing
@testable import AnfetchKit

/// Real runs against `LoopbackServer`, through the same ``Runner`` the executable uses (with a
/// silent console). Waits only catch hangs.
@Suite("Anfetch end to end")
struct AnfetchEndToEndTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("anfetch-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func run(_ urls: [String], _ configure: (inout FetchOptions) -> Void = { _ in }) async throws -> (RunReport, FetchOptions) {
        var options = FetchOptions()
        options.urls = urls
        configure(&options)
        let runner = Runner(options: options, console: Console(mode: .silent, descriptor: 1))
        let report = try await deadline { await runner.run(urls) }
        return (report, options)
    }

    /// Runs `body`, failing instead of hanging after 120 s.
    static func deadline<T: Sendable>(_ body: @escaping @Sendable () async -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask { try? await Task.sleep(for: .seconds(120)); return nil }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw CancellationError() }
            return value
        }
    }

    @Test func mixedBatchSucceedsFailsResumesAndNames() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        // Port 1 on loopback: nothing listens there (a stopped server's port could be taken by
        // another test's server meanwhile).
        let refusedURL = "http://127.0.0.1:1/gone.bin"
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("precious".utf8).write(to: directory.appendingPathComponent("taken.bin"))

        let urls = [
            server.url("/bytes/\(3 << 20)/big.bin?seed=9").absoluteString,
            server.url("/bytes/\(2 << 20)/dropped.bin?seed=4&drop=\(1 << 20)").absoluteString,
            server.url("/status/404").absoluteString,
            server.url("/status/200?header=Content-Disposition:attachment;%20filename%3D%22notes.txt%22").absoluteString,
            server.url("/bytes/100/taken.bin?seed=1").absoluteString,
            "ftp://example.com/file",
            refusedURL,
        ]
        let (report, _) = try await Self.run(urls) { $0.outputDirectory = directory.path; $0.jobs = 3 }
        let results = report.results
        #expect(results.map(\.outcome) == [.ok, .ok, .failed, .ok, .ok, .failed, .failed])
        #expect(!report.interrupted)
        #expect(Summary.exitStatus(results, interrupted: report.interrupted) == 1)

        // Bytes are right, including the download resumed after the drop.
        let big = try Data(contentsOf: directory.appendingPathComponent("big.bin"))
        #expect(big == SeededBytes.data(seed: 9, offset: 0, count: 3 << 20))
        let dropped = try Data(contentsOf: directory.appendingPathComponent("dropped.bin"))
        #expect(dropped == SeededBytes.data(seed: 4, offset: 0, count: 2 << 20))
        #expect(server.requests.contains { $0.path.hasSuffix("dropped.bin") && $0.headers.contains { $0.0.lowercased() == "range" } })
        // Named by Content-Disposition; the taken name got a number and the old file is untouched.
        #expect(results[3].path == directory.appendingPathComponent("notes.txt").path)
        #expect(try String(contentsOf: directory.appendingPathComponent("notes.txt"), encoding: .utf8) == "status 200")
        #expect(results[4].path == directory.appendingPathComponent("taken-1.bin").path)
        #expect(try String(contentsOf: directory.appendingPathComponent("taken.bin"), encoding: .utf8) == "precious")
        // Failures in plain words; no file for them.
        #expect(results[2].error == "HTTP 404 Not Found" && results[2].httpStatus == 404)
        #expect(results[5].error == "invalid URL (ftp: is not http or https)")
        #expect(results[6].error == "connection refused")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("404").path))
        #expect(results[0].bytes == 3 << 20 && results[0].httpStatus == 200)
        let json = Summary.json(results, seconds: report.seconds)
        #expect(json.contains("\"connection refused\"") && json.contains("big.bin"))
    }

    @Test func resumeContinuesAPartialFileAndNoResumeStartsOver() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let length = 2 << 20
        // A first run whose connection drops with no retry left: it fails and keeps its partial file.
        let url = server.url("/bytes/\(length)/file.bin?seed=6&drop=\(length / 2)").absoluteString
        let (first, _) = try await Self.run([url]) { $0.outputDirectory = directory.path; $0.retries = 0 }
        #expect(first.results[0].outcome == .failed)
        let partial = directory.appendingPathComponent("file.bin.partial")
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int)
        #expect(kept > 0 && kept <= length / 2)

        server.clearRequests()
        let (second, _) = try await Self.run([url]) { $0.outputDirectory = directory.path; $0.resume = true; $0.retries = 0 }
        #expect(second.results[0].outcome == .ok)
        #expect(second.results[0].bytesTransferred == Int64(length - kept))
        #expect(server.requests.first?.headers.first { $0.0.lowercased() == "range" }?.1 == "bytes=\(kept)-")
        #expect(try Data(contentsOf: directory.appendingPathComponent("file.bin")) == SeededBytes.data(seed: 6, offset: 0, count: length))

        // Without --resume a partial file is discarded: no Range request.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("file.bin"))
        let (third, _) = try await Self.run([url]) { $0.outputDirectory = directory.path; $0.retries = 0 }
        #expect(third.results[0].outcome == .failed)
        server.clearRequests()
        _ = try await Self.run([url]) { $0.outputDirectory = directory.path; $0.retries = 0 }
        #expect(server.requests.count == 1 && !server.requests[0].headers.contains { $0.0.lowercased() == "range" })
    }

    @Test func cancellingStopsCleanlyKeepsThePartialFileAndPrintsTheResumeCommand() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 2 GiB: the cancel lands mid-transfer (it follows the first bytes by milliseconds), and a
        // run killed mid-test leaves at most that much behind (16 GiB once filled the disk). The
        // second URL waits for the only slot.
        let urls = [server.url("/bytes/\(2 << 30)/huge.bin").absoluteString, server.url("/bytes/10/later.bin").absoluteString]
        var options = FetchOptions()
        options.urls = urls
        options.outputDirectory = directory.path
        options.jobs = 1
        let runner = Runner(options: options, console: Console(mode: .silent, descriptor: 1))
        let task = Task { await runner.run(urls) }
        let partial = directory.appendingPathComponent("huge.bin.partial")
        let started = ContinuousClock.now
        while ((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int) ?? 0) == 0 {
            try #require(ContinuousClock.now - started < .seconds(60), "the download never started")
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        let report = try await Self.deadline { await task.value }
        #expect(report.interrupted)
        #expect(report.results.map(\.outcome) == [.interrupted, .notStarted])
        #expect(report.results[0].bytes > 0)
        #expect(FileManager.default.fileExists(atPath: partial.path))
        #expect(Summary.exitStatus(report.results, interrupted: true) == 130)
        let command = try #require(Summary.resumeCommand(program: "anfetch", options: options, results: report.results, urls: urls))
        #expect(command.hasPrefix("anfetch --resume -o \(directory.path) -j 1 "))
        #expect(command.hasSuffix("\(urls[0]) \(urls[1])"))
    }
}
