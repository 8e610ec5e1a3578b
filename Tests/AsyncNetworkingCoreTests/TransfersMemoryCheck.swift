@testable import AsyncNetworkingTestSupport

/// Peak memory of 1 GiB uploads and downloads. Not a unit test: it runs only with
/// `ASYNCNETWORKING_MEMORY_CHECK=1`, and reads the kernel's peak resident set size (`VmHWM`), reset
/// before the measured phase through `/proc/self/clear_refs`. Run each test in its own process, so
/// one's heap does not count in the next:
///
///     for t in uploadFromFile multipartFilePart asyncSequenceUpload inputStreamChunked downloadToFile downloadWithEventsPausedTwice; do
///       ASYNCNETWORKING_MEMORY_CHECK=1 swift test --skip-build --filter "TransfersMemoryCheck/$t" | grep MEMORY
///     done
@Suite("Transfers memory check", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["ASYNCNETWORKING_MEMORY_CHECK"] == "1"))
struct TransfersMemoryCheck {
    static let gibibyte = 1 << 30
    static let limit = 100 << 20

    /// `VmHWM` and `VmRSS` of this process, in bytes.
    static func memory() -> (peak: Int, current: Int) {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return -1 }
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1) * 1024
        }
        return (field("VmHWM"), field("VmRSS"))
    }

    /// Resets the peak to the current resident size (Linux 4.0+).
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    /// Runs a phase and prints (and checks) its peak resident size.
    static func phase(_ name: String, _ body: () async throws -> Void) async throws {
        resetPeak()
        let before = memory()
        let start = ContinuousClock.now
        try await body()
        let after = memory()
        print("MEMORY \(name): peak \(mebibytes(after.peak)) (rss before \(mebibytes(before.current)), after \(mebibytes(after.current))) in \(ContinuousClock.now - start)")
        #expect(after.peak < limit, "\(name): peak RSS \(mebibytes(after.peak))")
    }

    static func uploadJSON(_ body: Data) -> (Int, String) {
        let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        return (json?["bytes"] as? Int ?? -1, json?["checksum"] as? String ?? "")
    }

    /// Runs `body` with a server, a manager, a scratch directory and the 1 GiB source file.
    static func withSetup(_ body: @escaping @Sendable (LoopbackServer, SessionManager, URL, URL) async throws -> Void) async throws {
        try await TransfersSupport.withDirectory { directory in
            let source = directory.appendingPathComponent("source.bin")
            try TransfersSupport.writeSeeded(source, seed: 1, count: gibibyte)
            try await withServerAndManager(deadline: 600) { server, manager in
                try await body(server, manager, directory, source)
            }
        }
    }

    static func uploadRequest(_ server: LoopbackServer) -> URLRequest {
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        request.timeoutInterval = 300
        return request
    }

    static let expected = String(TransfersSupport.checksum(seed: 1, count: gibibyte))

    @Test func uploadFromFile() async throws {
        try await Self.withSetup { server, manager, _, source in
            var reply = Data()
            try await Self.phase("upload 1 GiB from a file") {
                reply = try await manager.upload(for: Self.uploadRequest(server), fromFile: source).0
            }
            #expect(Self.uploadJSON(reply) == (Self.gibibyte, Self.expected))
        }
    }

    @Test(arguments: [MultipartEncoding.temporaryFile, .chunked])
    func multipartFilePart(encoding: MultipartEncoding) async throws {
        try await Self.withSetup { server, manager, _, source in
            var form = MultipartFormData()
            try form.append(fileAt: source, name: "file")
            var reply = Data()
            try await Self.phase("multipart with a 1 GiB file part, \(encoding)") {
                reply = try await manager.upload(multipart: form, for: Self.uploadRequest(server), encoding: encoding).0
            }
            #expect(Self.uploadJSON(reply).0 == Int(try form.contentLength()))
        }
    }

    @Test func asyncSequenceUpload() async throws {
        try await Self.withSetup { server, manager, _, _ in
            var reply = Data()
            try await Self.phase("upload 1 GiB from an AsyncSequence (streamed on curl, spooled elsewhere)") {
                let chunks = SeededChunks(count: Self.gibibyte, seed: 1, size: 1 << 20)
                reply = try await manager.upload(for: Self.uploadRequest(server), from: chunks).0
            }
            #expect(Self.uploadJSON(reply) == (Self.gibibyte, Self.expected))
        }
    }

    @Test func inputStreamChunked() async throws {
        try await Self.withSetup { server, manager, _, source in
            var reply = Data()
            try await Self.phase("upload 1 GiB from an InputStream, chunked") {
                reply = try await manager.upload(for: Self.uploadRequest(server), fromStream: { InputStream(url: source)! }, mode: .chunked).0
            }
            #expect(Self.uploadJSON(reply) == (Self.gibibyte, Self.expected))
        }
    }

    @Test func downloadToFile() async throws {
        try await Self.withSetup { server, manager, directory, _ in
            let target = directory.appendingPathComponent("downloaded.bin")
            try await Self.phase("download 1 GiB to a file") {
                _ = try await manager.download(from: server.url("/bytes/\(Self.gibibyte)?seed=1"), to: .file(target))
            }
            #expect(String(try TransfersSupport.checksum(ofFile: target)) == Self.expected)
        }
    }

    @Test func downloadWithEventsPausedTwice() async throws {
        try await Self.withSetup { server, manager, directory, _ in
            let target = directory.appendingPathComponent("paused.bin")
            try await Self.phase("download 1 GiB with events, paused and resumed twice") {
                let count = Self.gibibyte
                let handle = try await manager.downloadTask(with: URLRequest(url: server.url("/bytes/\(count)?seed=1")), to: .file(target))
                var pauses = 0
                for try await event in handle.events {
                    if let progress = event.downloadProgressValue, pauses < 2, progress.completedBytes > Int64(pauses + 1) * Int64(count / 3) {
                        pauses += 1
                        try await handle.suspend()
                        _ = await eventually { await manager.runningTransferCount == 0 }
                        try await handle.resume()
                    }
                }
            }
            #expect(String(try TransfersSupport.checksum(ofFile: target)) == Self.expected)
        }
    }
}
