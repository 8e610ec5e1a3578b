import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AsyncNetworkingCore
@testable import CurlTransport

/// Rule: a number a server writes — `retry:`, cookie `Max-Age` and `Expires`, `Content-Length`,
/// `Content-Range`, `Content-Encoding`'s list — never traps and never sizes an allocation: at 0,
/// Int.max, 2^63 − 1, 2^64 − 1, negative and as a digit string thousands long, each parser gives
/// a bounded value or ignores the field. Sums of such values (a batch's expected bytes) cannot
/// overflow; the one that trapped runs in a child process (an exit test).
@Suite("Wire numbers at their extremes")
struct WireNumberExtremesTests {
    static let huge = String(repeating: "9", count: 5000)
    static let extremes = [
        "0", "-0", "-1", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
        "-9223372036854775808", "-9223372036854775809", huge, "-" + huge, "+5", "1e3", " 7", "0x10", "",
    ]

    // MARK: Server-sent events

    @Test(arguments: extremes)
    func sseRetryIsDigitsOnlyAndSaturates(value: String) throws {
        var parser = ServerSentEventParser(maxEventSize: 100)
        _ = try parser.parse(line: Data("retry: \(value)".utf8))
        let digitsOnly = !value.isEmpty && value.utf8.allSatisfy { (0x30...0x39).contains($0) }
        if digitsOnly {
            let retry = try #require(parser.reconnectionTime)
            #expect(retry >= 0 && retry <= Int.max / 2)
            let delay = EventSource.Configuration().delay(serverRetry: retry, failedAttempts: 64)
            #expect(delay >= .milliseconds(500) && delay <= .seconds(60))
        } else {
            #expect(parser.reconnectionTime == nil)
        }
    }

    @Test func extremeRetryValuesGiveWaitsInsideTheBounds() {
        let configuration = EventSource.Configuration()
        for retry in [Int.min, -1, 0, 1, Int.max / 2, Int.max] {
            for attempts in [0, 1, 64, Int.max] {
                let delay = configuration.delay(serverRetry: retry, failedAttempts: attempts, jitter: 1)
                #expect(delay >= .milliseconds(500) && delay <= .seconds(60), "retry \(retry), attempts \(attempts)")
            }
        }
    }

    // MARK: Cookies

    @Test(arguments: extremes)
    func cookieMaxAgeIsBoundedByTheLifetimeCap(value: String) throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let cookie = try #require(SetCookieParser.parse("a=b; Max-Age=\(value)"))
        let text = value.trimmingCharacters(in: .whitespaces) // attribute values are trimmed
        let body = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let valid = !body.isEmpty && body.utf8.allSatisfy { (0x30...0x39).contains($0) } && value.utf8.count <= 1024
        guard valid else {
            #expect(cookie.expiry == nil, "\(value.prefix(40)) should be ignored")
            return
        }
        let expiry = try #require(cookie.expiryDate(receivedAt: now))
        let positive = !text.hasPrefix("-") && body.contains { $0 != "0" }
        if positive {
            #expect(expiry > now && expiry <= now.addingTimeInterval(400 * 86_400))
        } else {
            #expect(expiry == .distantPast)
        }
    }

    @Test(arguments: [
        "Wed, 21 Oct 2015 07:28:00 GMT", "99999999999999999999:00:00 1 Jan 2020", "00:00:00 \(huge) Jan 2020",
        "00:00:00 1 Jan \(huge)", "00:00:00 1 Jan 9223372036854775807", "00:00:00 1 Jan -1", "23:59:59 31 Dec 9999",
        "00:00:00 1 Jan 1601", "00:00:00 1 Jan 1600", "\(huge):\(huge):\(huge) 1 Jan 2000",
    ])
    func cookieDatesAreBoundedOrRefused(text: String) {
        guard let date = CookieDateParser.parse(text) else { return }
        #expect(date.timeIntervalSince1970 >= -11_644_473_600 && date.timeIntervalSince1970 < 253_402_300_800, "\(text.prefix(60))")
    }

    // MARK: Lengths and ranges

    @Test(arguments: extremes)
    func contentLengthIsOneNonNegativeInt64OrUnknown(value: String) {
        let head = ResponseHead(statusCode: 200, httpVersion: "HTTP/1.1", fields: [(name: "Content-Length", value: value)])
        let length = TransferState.expectedBodyLength(of: head, method: "GET")
        // 1*DIGIT (RFC 9110 §8.6) that fits an Int64; a sign, a space or an overflow is no length.
        let digits = !value.isEmpty && value.utf8.allSatisfy { (0x30...0x39).contains($0) }
        #expect(length == (digits ? Int64(value) : nil), "\(value.prefix(40))")
        #expect(TransferState.expectedBodyLength(of: head, method: "HEAD") == 0)
    }

    @Test(arguments: [
        ("bytes 0-9223372036854775806/9223372036854775807", true), ("bytes 9223372036854775806-9223372036854775807/*", true),
        ("bytes 0-9223372036854775807/9223372036854775807", false), ("bytes 0-18446744073709551615/*", false),
        ("bytes -1-5/10", false), ("bytes 5-1/10", false), ("bytes 0-\(huge)/*", false), ("bytes 0-1/\(huge)", false),
        ("bytes 0-0/0", false), ("bytes 0-0/1", true),
    ])
    func contentRangeExtremes(value: String, valid: Bool) throws {
        let response = try #require(HTTPURLResponse(
            url: URL(string: "http://127.0.0.1/")!, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: ["Content-Range": value]
        ))
        let range = ResumeHeaders.contentRange(of: response)
        #expect((range != nil) == valid, "\(value.prefix(60))")
        if let range {
            #expect(range.start >= 0 && range.end >= range.start && (range.total.map { $0 > range.end } ?? true))
        }
    }

    /// More stacked codings than libcurl decodes are refused, not given a decoder each.
    @Test(arguments: [5, 6, 100, 100_000])
    func stackedContentCodingsAreBounded(count: Int) throws {
        let field = Array(repeating: "gzip", count: count).joined(separator: ", ")
        let codings = try #require(ContentCoding.codings(contentEncoding: [field]))
        #expect(codings.count == count)
        let decoder = try #require(ContentDecoder(codings: codings))
        var input = UnsafeRawBufferPointer(start: nil, count: 0)
        if count <= 5 { // libcurl's MAX_ENCODE_STACK
            #expect(decoder.failure == nil)
            #expect(decoder.isComplete)
        } else {
            #expect(decoder.failure != nil)
            #expect(!decoder.isComplete)
            #expect(throws: ContentDecodingError.self) { _ = try decoder.decode(&input, capacity: 1024) { _ in } }
        }
    }

    // MARK: Sums of declared sizes

    /// Two members answering `Content-Length: 9223372036854775807` (and uploads of as much):
    /// the aggregate saturates at Int64.max instead of overflowing.
    static func checkBatchSums() {
        var state = BatchProgressState(count: 3)
        for index in 0..<3 {
            state.upload(index, TransferProgress(completedBytes: .max, expectedBytes: .max))
            state.response(index, expectedBytes: .max)
            state.download(index, TransferProgress(completedBytes: .max - 1, expectedBytes: .max))
        }
        let snapshot = state.snapshot
        precondition(snapshot.download.expectedBytes == .max && snapshot.download.completedBytes == .max)
        precondition(snapshot.upload.expectedBytes == .max && snapshot.upload.completedBytes == .max)
        precondition(snapshot.fractionCompleted > 0.99 && snapshot.fractionCompleted <= 1)
        for index in 0..<3 { state.finish(index, failed: false, sent: 10, received: 20) }
        precondition(state.snapshot.download.completedBytes == 60 && state.snapshot.upload.expectedBytes == 30)
    }

    @Test func batchProgressSumsOfHugeDeclaredSizesSaturate() async {
        await #expect(processExitsWith: .success) { WireNumberExtremesTests.checkBatchSums() }
    }
}
