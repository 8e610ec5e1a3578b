@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// RULE: a resumed download sends `If-Range` only with a strong `ETag`, or with
/// `Last-Modified` when the response had no `ETag` at all; a 206 is appended only when every
/// validator it carries matches the partial file's (strong comparison, same `Last-Modified`, same
/// complete length); anything else restarts from byte 0 — never a splice of two versions.
///
/// Each test downloads `/resume/N` once with the connection cut after `kept` bytes, optionally
/// changes the resource, then downloads again: the file must be one version, whole.
@Suite struct ResumeValidatorTests {
    static let count = 400_000
    static let kept = 150_000

    struct Outcome {
        var firstKeptPartial: Bool
        var status: Int
        var requests: [RecordedRequest]
        var wholeVersion: Bool
    }

    /// The cut first download, `change` applied to the server, then the second download.
    static func twoDownloads(
        _ query: String, change: @escaping @Sendable (LoopbackServer) -> Void = { _ in }
    ) async throws -> Outcome {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let options = DownloadOptions(resumable: true, automaticResumeAttempts: 0)
                let target = directory.appendingPathComponent("file.bin")
                let cut = server.url("/resume/\(count)?\(query)&drop=\(kept)")
                var keptPartial = false
                do throws(NetworkingError) {
                    _ = try await manager.download(from: cut, to: .file(target), options: options)
                    Issue.record("the cut download succeeded")
                } catch {
                    guard case .transport = error.kind else { throw error }
                    keptPartial = error.fileURL.map { TransferFiles.size(of: $0) ?? 0 } ?? 0 > 0
                }
                change(server)
                let (file, response) = try await manager.download(from: cut, to: .file(target), options: options)
                let version = server.resourceVersion
                let length = count + version * (query.contains("grow=") ? 1000 : 0)
                let whole = try TransfersSupport.verify(file, seed: UInt64(version), count: length) != nil
                return Outcome(
                    firstKeptPartial: keptPartial, status: response.statusCode,
                    requests: TransfersSupport.requests(server, path: "/resume/\(count)"), wholeVersion: whole
                )
            }
        }
    }

    // MARK: What If-Range carries

    @Test func weakETagBesideLastModifiedIsNeverResumedWithTheDate() async throws {
        // The issue's case: the weak tag changes, the date does not. The date must not be sent.
        let outcome = try await Self.twoDownloads("etag=weak&lm=fixed") { $0.bumpResourceVersion() }
        #expect(!outcome.firstKeptPartial, "no usable validator: nothing kept to resume")
        #expect(outcome.requests.allSatisfy { $0.header("If-Range") == nil })
        #expect(outcome.requests.last?.header("Range") == nil, "restarted from byte 0")
        #expect(outcome.status == 200)
        #expect(outcome.wholeVersion, "the file is version 1, whole, not two versions spliced")
    }

    @Test func weakETagAloneIsNotResumed() async throws {
        let outcome = try await Self.twoDownloads("etag=weak&lm=none")
        #expect(!outcome.firstKeptPartial)
        #expect(outcome.requests.allSatisfy { $0.header("If-Range") == nil && $0.header("Range") == nil })
        #expect(outcome.wholeVersion)
    }

    @Test func lastModifiedWithoutAnyETagIsResumed() async throws {
        let outcome = try await Self.twoDownloads("etag=none&lm=fixed")
        #expect(outcome.firstKeptPartial)
        #expect(outcome.requests.last?.header("If-Range") == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(outcome.requests.last?.header("Range") == "bytes=\(Self.kept)-")
        #expect(outcome.status == 206)
        #expect(outcome.wholeVersion)
    }

    @Test func strongETagIsResumed() async throws {
        let outcome = try await Self.twoDownloads("etag=strong")
        #expect(outcome.requests.last?.header("If-Range") == "\"s0\"")
        #expect(outcome.status == 206)
        #expect(outcome.wholeVersion)
    }

    // MARK: Which 206 is appended

    @Test func changedStrongETagFromAServerIgnoringIfRangeRestarts() async throws {
        let outcome = try await Self.twoDownloads("etag=strong&ignoreifrange=1") { $0.bumpResourceVersion() }
        #expect(outcome.requests.count == 3, "cut, refused 206, plain restart")
        #expect(outcome.requests.last?.header("Range") == nil)
        #expect(outcome.status == 200)
        #expect(outcome.wholeVersion)
    }

    @Test func changedLastModifiedBesideAnUnchangedStrongETagRestarts() async throws {
        // The tag is the same, the date moved: a validator the 206 carries does not match.
        let outcome = try await Self.twoDownloads("etag=same&lm=versioned") { $0.bumpResourceVersion() }
        #expect(outcome.requests.last?.header("Range") == nil)
        #expect(outcome.status == 200)
        #expect(outcome.wholeVersion)
    }

    @Test func changedCompleteLengthRestarts() async throws {
        let outcome = try await Self.twoDownloads("etag=same&lm=fixed&grow=1000") { $0.bumpResourceVersion() }
        #expect(outcome.requests.count == 3, "cut, refused 206 (its Content-Range states another length), restart")
        #expect(outcome.requests.last?.header("Range") == nil)
        #expect(outcome.wholeVersion)
    }

    @Test func a206WithoutValidatorsAfterAStrongETagRestarts() async throws {
        let outcome = try await Self.twoDownloads("etag=strong&bare206=1")
        #expect(outcome.requests.count == 3)
        #expect(outcome.requests.last?.header("Range") == nil)
        #expect(outcome.status == 200)
        #expect(outcome.wholeVersion)
    }

    @Test func a200ToARangeRequestReplacesTheBytesOnDisk() async throws {
        let outcome = try await Self.twoDownloads("etag=strong&norange=1") { $0.bumpResourceVersion() }
        #expect(outcome.requests.last?.header("Range") == "bytes=\(Self.kept)-", "asked for the rest")
        #expect(outcome.status == 200)
        #expect(outcome.wholeVersion, "the 200's body is the whole file, from byte 0")
    }

    // MARK: The rules as values

    @Test func ifRangeChoiceFollowsRFC9110() {
        let date = "Tue, 14 Nov 2023 22:13:20 GMT"
        #expect(ResumeValidators(etag: "\"a\"", lastModified: date).ifRange == "\"a\"")
        #expect(ResumeValidators(etag: "W/\"a\"", lastModified: date).ifRange == nil)
        #expect(ResumeValidators(etag: "W/\"a\"", lastModified: nil).ifRange == nil)
        #expect(ResumeValidators(etag: nil, lastModified: date).ifRange == date)
        #expect(ResumeValidators(etag: nil, lastModified: date, date: date).ifRange == nil, "a date as recent as Date is weak")
        #expect(ResumeValidators(etag: nil, lastModified: date, date: "Tue, 14 Nov 2023 22:13:21 GMT").ifRange == date)
        #expect(ResumeValidators(etag: nil, lastModified: "yesterday").ifRange == nil)
        #expect(ResumeValidators(etag: nil, lastModified: nil).ifRange == nil)
    }

    @Test func aRecordOfAnEarlierReleaseNeverMatchesAValidatorItDidNotStore() throws {
        let url = try #require(URL(string: "http://127.0.0.1/x"))
        let date = "Tue, 14 Nov 2023 22:13:20 GMT"
        let old = ResumeValidators(record: DownloadRecord(url: url.absoluteString, validator: date, totalLength: 10))
        let weak206 = try #require(HTTPURLResponse(url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: [
            "ETag": "W/\"b\"", "Last-Modified": date,
        ]))
        let plain206 = try #require(HTTPURLResponse(url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: [
            "Last-Modified": date,
        ]))
        #expect(!old.continue206(weak206), "the 206 carries a tag the partial file never had")
        #expect(old.continue206(plain206))
        #expect(ResumeValidators.sameCompleteLength(nil, known: 10) == false, "`*` where the length is known")
        #expect(ResumeValidators.sameCompleteLength(11, known: 10) == false)
        #expect(ResumeValidators.sameCompleteLength(10, known: 10))
    }
}
