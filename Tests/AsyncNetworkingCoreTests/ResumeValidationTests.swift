@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// A 206 is appended to a partial file only when it provably continues it; anything else restarts
/// the download from byte 0 and the file is the current version, byte for byte.
@Suite struct ResumeValidationTests {
    static let count = 1 << 20
    static let kept = 300_000
    /// `Last-Modified` of `/versioned/N` at version 0.
    static let versionZeroDate = "Tue, 14 Nov 2023 22:13:20 GMT"

    /// Writes what an earlier attempt would have left: the first `kept` bytes of version 0 and its record.
    static func plantEarlierAttempt(target: URL, url: URL, validator: String, totalLength: Int64?) throws {
        try SeededBytes.data(seed: 0, offset: 0, count: kept).write(to: URL(fileURLWithPath: target.path + TransferFiles.partialSuffix))
        try DownloadRecord(url: url.absoluteString, validator: validator, totalLength: totalLength)
            .save(to: URL(fileURLWithPath: target.path + TransferFiles.partialSuffix + TransferFiles.recordSuffix))
    }

    static func download(
        _ query: String, validator: String, totalLength: Int64? = Int64(count), bump: Bool
    ) async throws -> (status: Int, file: URL, requests: [RecordedRequest], seed: UInt64) {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let url = server.url("/versioned/\(count)?\(query)")
                let target = directory.appendingPathComponent("resumed.bin")
                try plantEarlierAttempt(target: target, url: url, validator: validator, totalLength: totalLength)
                if bump { server.bumpResourceVersion() }
                let (file, response) = try await manager.download(
                    from: url, to: .file(target), options: DownloadOptions(resumable: true, automaticResumeAttempts: 0)
                )
                let seed = UInt64(server.resourceVersion)
                #expect(try TransfersSupport.verify(file, seed: seed, count: count) != nil, "the file is version \(seed), whole")
                return (response.statusCode, file, TransfersSupport.requests(server, path: "/versioned/\(count)"), seed)
            }
        }
    }

    @Test func changedResourceBehindALastModifiedValidatorIsNotSpliced() async throws {
        // A weak ETag beside Last-Modified: the stored validator is the date.
        let result = try await Self.download("etag=W/%22same%22&ignoreifrange=1", validator: Self.versionZeroDate, bump: true)
        #expect(result.status == 200)
        #expect(result.requests.first?.header("If-Range") == Self.versionZeroDate)
        #expect(result.requests.last?.header("Range") == nil, "restarted with a plain request")
    }

    @Test func changedResourceBehindAStrongETagIsNotSpliced() async throws {
        let result = try await Self.download("ignoreifrange=1", validator: "\"v0-\(Self.count)\"", bump: true)
        #expect(result.status == 200)
        #expect(result.requests.last?.header("Range") == nil)
    }

    @Test func contentRangeAtTheWrongOffsetRestarts() async throws {
        let result = try await Self.download("rangeshift=1000", validator: "\"v0-\(Self.count)\"", bump: false)
        #expect(result.status == 200)
        #expect(result.requests.count == 2)
        #expect(result.requests.first?.header("Range") == "bytes=\(Self.kept)-")
        #expect(result.requests.last?.header("Range") == nil)
    }

    @Test func inconsistentTotalRestarts() async throws {
        let result = try await Self.download("", validator: "\"v0-\(Self.count)\"", totalLength: Int64(Self.count + 5), bump: false)
        #expect(result.status == 200)
        #expect(result.requests.last?.header("Range") == nil)
    }

    @Test func lastModifiedBesideAWeakETagIsNotResumed() async throws {
        // With an ETag present (even weak) a date never validates a range, so a
        // 206 carrying a tag the partial file never recorded restarts (see ResumeValidatorTests).
        let result = try await Self.download("etag=W/%22same%22", validator: Self.versionZeroDate, bump: false)
        #expect(result.status == 200)
        #expect(result.requests.count == 2)
        #expect(result.requests.last?.header("Range") == nil)
    }

    @Test func matchingStrongETagIsResumed() async throws {
        let result = try await Self.download("", validator: "\"v0-\(Self.count)\"", bump: false)
        #expect(result.status == 206)
        #expect(result.requests.count == 1)
    }
}
