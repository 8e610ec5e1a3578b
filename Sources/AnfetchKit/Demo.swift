import Foundation
import LoopbackServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `anfetch --demo`: starts `LoopbackServer` in-process on 127.0.0.1 and downloads a batch of
/// generated files — mixed sizes, one slow, one failing, one whose connection drops and is resumed,
/// one of unknown size, one named by `Content-Disposition` — with the normal display, then checks
/// every file's checksum against the generator and prints the summary.
public enum Demo {
    /// One demo file: its path on the server and what its body must be.
    public struct Item: Sendable {
        /// Path and query on the loopback server.
        public var path: String
        /// The body the server generates, or `nil` for the URL that must fail.
        public var expected: Body?
        /// A few words shown before the run.
        public var about: String
    }

    /// A generated body, for the checksum.
    public enum Body: Sendable, Equatable {
        /// `SeededBytes` of `seed`, `count` bytes.
        case seeded(seed: UInt64, count: Int)
        /// `BytePattern`, `count` bytes.
        case pattern(count: Int)
        /// These exact bytes.
        case literal(String)
    }

    /// Where the slow file's connection drops (6 MiB in).
    public static let dropAfter = 6 << 20

    /// The demo's files.
    public static let items: [Item] = [
        Item(path: "/bytes/\(128 << 20)/dataset.bin?seed=1", expected: .seeded(seed: 1, count: 128 << 20), about: "128 MiB"),
        Item(path: "/drip/photos.tar?bytes=\(48 << 20)&chunks=96&delay=40", expected: .pattern(count: 48 << 20),
             about: "48 MiB at about 12 MiB/s"),
        Item(path: "/drip/slow.bin?bytes=\(3 << 20)&chunks=60&delay=100", expected: .pattern(count: 3 << 20), about: "3 MiB, slowly (6 s)"),
        Item(path: "/bytes/\(24 << 20)/resumed.iso?seed=5&drop=\(dropAfter)", expected: .seeded(seed: 5, count: 24 << 20),
             about: "24 MiB; the server drops the connection after 6 MiB"),
        Item(path: "/stream/\(12 << 20)/stream.log", expected: .pattern(count: 12 << 20), about: "12 MiB, chunked: size unknown"),
        Item(path: "/status/404", expected: nil, about: "404: fails"),
        Item(path: "/status/200?header=Content-Disposition:attachment;%20filename%3D%22notes.txt%22",
             expected: .literal("status 200"), about: "named by Content-Disposition"),
        Item(path: "/bytes/\(1 << 20)/small.bin?seed=3", expected: .seeded(seed: 3, count: 1 << 20), about: "1 MiB"),
    ]

    /// Runs the demo with `options` (its URLs are ignored; `-o` keeps the files). Returns 0 when
    /// every file arrived intact and the failing URL failed, else 1.
    public static func run(_ options: FetchOptions, program: String) async -> Int32 {
        let server: LoopbackServer
        do {
            server = try LoopbackServer()
        } catch {
            Terminal.write("anfetch: cannot start the loopback server: \(error)\n", to: STDERR_FILENO)
            return 1
        }
        defer { server.stop() }
        var options = options
        let keep = options.outputDirectory != "."
        if !keep {
            options.outputDirectory = FileManager.default.temporaryDirectory
                .appendingPathComponent("anfetch-demo-\(getpid())").path
        }
        options.urls = items.map { server.url($0.path).absoluteString }
        // With --json, stdout holds only the JSON document.
        let out = Console(mode: options.quiet ? .silent : .plain, descriptor: options.json ? STDERR_FILENO : STDOUT_FILENO)
        out.log("anfetch demo: LoopbackServer at \(server.baseURL), files into \(options.outputDirectory)")
        for item in items { out.log("  \(item.path.split(separator: "?")[0])  — \(item.about)") }
        out.log("")

        // The generator's checksums are computed while the files download (the slow one leaves time).
        let expectedSums = Task.detached(priority: .utility) { items.map { $0.expected.map(checksum(of:)) } }
        let report = await Anfetch.runInterruptibly(options)
        // The demo's server stops with it: there is nothing to resume, so no resume command.
        let status = Anfetch.finish(report, options: options, program: program, offerResume: false)
        if report.interrupted {
            if !keep { try? FileManager.default.removeItem(atPath: options.outputDirectory) }
            return status
        }

        out.log("")
        let resumeRanges = server.requests.compactMap { request in
            request.headers.first { $0.0.lowercased() == "range" }.map { "\(request.path): Range \($0.1)" }
        }
        if !resumeRanges.isEmpty {
            out.log("resumed after the drop: " + resumeRanges.joined(separator: "; "))
        }
        let sums = await expectedSums.value
        let actualSums = await withTaskGroup(of: (Int, UInt64?).self) { group in
            for (index, result) in report.results.enumerated() where result.outcome == .ok {
                group.addTask { (index, result.path.flatMap(checksum(ofFileAt:))) }
            }
            var found: [Int: UInt64] = [:]
            for await (index, sum) in group { found[index] = sum }
            return found
        }
        var intact = 0
        var problems: [String] = []
        for (index, (item, result)) in zip(items, report.results).enumerated() {
            switch (item.expected, result.outcome) {
            case (nil, .failed):
                continue
            case (nil, _):
                problems.append("\(item.path) should have failed")
            case (_?, .ok):
                guard let actual = actualSums[index] else {
                    problems.append("\(item.path): file missing")
                    continue
                }
                if actual == sums[index] { intact += 1 } else { problems.append("\(result.path ?? item.path): checksum mismatch") }
            case (_?, _):
                problems.append("\(item.path): \(result.error ?? "failed")")
            }
        }
        let expected = items.count { $0.expected != nil }
        out.log("checksums (FNV-1a 64): \(intact) of \(expected) files match the generator"
                + (problems.isEmpty ? "; the 404 is part of the demo" : ""))
        for problem in problems { out.error("anfetch demo: \(problem)") }
        if !keep {
            try? FileManager.default.removeItem(atPath: options.outputDirectory)
            out.log("(the files were in a temporary directory, now removed; -o DIR keeps them)")
        }
        return problems.isEmpty ? 0 : 1
    }

    /// The FNV-1a 64 of a generated body, computed 1 MiB at a time.
    public static func checksum(of body: Body) -> UInt64 {
        var hasher = FNV1a64()
        let count: Int
        let generate: (Int, Int) -> Data
        switch body {
        case .literal(let text):
            hasher.update(Data(text.utf8))
            return hasher.value
        case .seeded(let seed, let length):
            count = length
            generate = { SeededBytes.data(seed: seed, offset: $0, count: $1) }
        case .pattern(let length):
            count = length
            generate = { BytePattern.data(offset: $0, count: $1) }
        }
        var offset = 0
        while offset < count {
            let size = min(1 << 20, count - offset)
            hasher.update(generate(offset, size))
            offset += size
        }
        return hasher.value
    }

    /// The FNV-1a 64 of a file, read 1 MiB at a time, or `nil` when it cannot be read.
    public static func checksum(ofFileAt path: String) -> UInt64? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = FNV1a64()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(chunk)
        }
        return hasher.value
    }
}
