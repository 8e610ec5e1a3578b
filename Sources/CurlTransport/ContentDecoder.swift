#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation

/// A content coding this library decodes itself (RFC 9110 §8.4.1), over zlib, libbrotlidec and
/// libzstd loaded at run time (`ANContentDecoder.h`).
enum ContentCoding: Sendable, Hashable, CaseIterable {
    case gzip, deflate, brotli, zstd

    /// The coding named by a `Content-Encoding` token (`x-gzip` is `gzip`), or `nil`.
    init?(token: String) {
        switch token.lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        case "br": self = .brotli
        case "zstd": self = .zstd
        default: return nil
        }
    }

    /// The token sent in `Accept-Encoding`.
    var token: String {
        switch self {
        case .gzip: "gzip"
        case .deflate: "deflate"
        case .brotli: "br"
        case .zstd: "zstd"
        }
    }

    var code: Int32 {
        switch self {
        case .gzip: AN_CODING_GZIP
        case .deflate: AN_CODING_DEFLATE
        case .brotli: AN_CODING_BROTLI
        case .zstd: AN_CODING_ZSTD
        }
    }

    /// Whether its library could be loaded (checked once per process, thread-safe).
    var isAvailable: Bool { an_decoder_available(code) == 1 }

    /// The `Accept-Encoding` value listing every coding whose library is present, or `nil`.
    static let acceptEncoding: String? = {
        let tokens = [ContentCoding.gzip, .deflate, .brotli, .zstd].filter(\.isAvailable).map(\.token)
        return tokens.isEmpty ? nil : tokens.joined(separator: ", ")
    }()

    /// The codings of a `Content-Encoding` field, in the order they were applied; `nil` when the
    /// body is not to be decoded: no coding, or one this library cannot decode (the body is then
    /// delivered as received, its `Content-Encoding` telling what it is). `identity` is skipped.
    static func codings(contentEncoding: [String]) -> [ContentCoding]? {
        var codings: [ContentCoding] = []
        for field in contentEncoding {
            for raw in field.split(separator: ",") {
                let token = raw.trimmingCharacters(in: .whitespaces)
                if token.isEmpty || token.lowercased() == "identity" { continue }
                guard let coding = ContentCoding(token: token), coding.isAvailable else { return nil }
                codings.append(coding)
            }
        }
        return codings.isEmpty ? nil : codings
    }
}

/// Why an encoded body could not be decoded: corrupt or truncated data, trailing bytes, a
/// checksum mismatch, or a zstd window over RFC 9659's 8 MB.
struct ContentDecodingError: Error, Sendable, CustomStringConvertible {
    let description: String
}

/// Decodes one response body's content codings (stacked codings decode in reverse order),
/// incrementally and with bounded memory: ``decode(_:capacity:into:)`` yields at most `capacity`
/// decoded bytes and keeps no input — what it did not use stays with the caller. Between stacked
/// stages it holds at most ``stageBufferSize`` bytes per stage.
///
/// Not thread-safe: owned by one transfer on one thread.
final class ContentDecoder {
    /// The most bytes one stage hands to the next at a time.
    static let stageBufferSize = 64 << 10

    private let codings: [ContentCoding]
    /// `stages[0]` undoes the last coding applied, so it reads the body.
    private let stages: [OpaquePointer]
    /// `buffers[i]` holds what `stages[i]` produced and `stages[i + 1]` has not read yet.
    private let buffers: [UnsafeMutableRawBufferPointer]
    /// Where ``decode(_:capacity:into:)`` collects output before handing it on.
    private let scratch: UnsafeMutableRawBufferPointer
    private var bufferStarts: [Int]
    private var bufferEnds: [Int]
    /// Encoded bytes seen (a body of none has nothing to finish).
    private(set) var encodedBytes: Int64 = 0
    private(set) var failure: ContentDecodingError?

    /// The most codings one body may stack, as libcurl allows (`MAX_ENCODE_STACK`, curl 7.88): each
    /// costs a decoder's window (up to 16 MiB for brotli) and a stage buffer, so a
    /// `Content-Encoding` listing thousands of them must not allocate for each.
    static let maximumStackedCodings = 5

    /// A decoder for `codings` (in the order applied), or `nil` when a library cannot be used.
    /// More than ``maximumStackedCodings`` makes a decoder that refuses the body: its first
    /// ``decode(_:capacity:into:)`` throws, and an empty body is not ``isComplete``.
    init?(codings: [ContentCoding]) {
        guard codings.count <= Self.maximumStackedCodings else {
            self.codings = codings
            stages = []
            buffers = []
            scratch = .allocate(byteCount: 0, alignment: 16)
            bufferStarts = []
            bufferEnds = []
            failure = ContentDecodingError(
                description: "the response stacks \(codings.count) content codings; at most \(Self.maximumStackedCodings) are decoded"
            )
            return
        }
        var stages: [OpaquePointer] = []
        for coding in codings.reversed() {
            guard let stage = an_decoder_create(coding.code) else {
                stages.forEach { an_decoder_free($0) }
                return nil
            }
            stages.append(stage)
        }
        self.codings = codings
        self.stages = stages
        let inner = max(0, stages.count - 1)
        buffers = (0..<inner).map { _ in .allocate(byteCount: Self.stageBufferSize, alignment: 16) }
        scratch = .allocate(byteCount: Self.stageBufferSize, alignment: 16)
        bufferStarts = Array(repeating: 0, count: inner)
        bufferEnds = Array(repeating: 0, count: inner)
    }

    deinit {
        stages.forEach { an_decoder_free($0) }
        buffers.forEach { $0.deallocate() }
        scratch.deallocate()
    }

    /// The codings' names, as in `Content-Encoding`.
    var name: String {
        codings.count <= Self.maximumStackedCodings ? codings.map(\.token).joined(separator: ", ") : "\(codings.count) stacked codings"
    }

    /// Decodes from `input` (advanced past what was used) and hands at most `capacity` decoded
    /// bytes to `sink`, in pieces. Returns how many it handed over; 0 with input left means more
    /// output room is needed. Throws when the data is not a valid encoding.
    func decode(
        _ input: inout UnsafeRawBufferPointer, capacity: Int, into sink: (UnsafeRawBufferPointer) -> Void
    ) throws(ContentDecodingError) -> Int {
        if let failure { throw failure }
        var total = 0
        while total < capacity {
            let wanted = min(capacity - total, scratch.count)
            let produced = try pull(stage: stages.count - 1, input: &input, into: scratch.baseAddress!, capacity: wanted)
            if produced == 0 { break }
            sink(UnsafeRawBufferPointer(rebasing: scratch[0..<produced]))
            total += produced
        }
        return total
    }

    /// Whether the body may end here: every stage ended a frame or member and nothing is left
    /// between stages. A body of no bytes counts as complete.
    var isComplete: Bool {
        guard failure == nil else { return false }
        guard encodedBytes > 0 else { return true }
        for index in bufferStarts.indices where bufferStarts[index] != bufferEnds[index] { return false }
        return stages.allSatisfy { an_decoder_is_complete($0) == 1 }
    }

    /// Runs `stages[index]` once or more until it produced something or can make no progress.
    private func pull(
        stage index: Int, input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, capacity: Int
    ) throws(ContentDecodingError) -> Int {
        while true {
            if index > 0, bufferStarts[index - 1] == bufferEnds[index - 1] {
                // Refill what this stage reads from the stage before it.
                let storage = buffers[index - 1]
                let refilled = try pull(stage: index - 1, input: &input, into: storage.baseAddress!, capacity: storage.count)
                bufferStarts[index - 1] = 0
                bufferEnds[index - 1] = refilled
            }
            let (used, produced) = try step(index, input: &input, output: output, capacity: capacity)
            if produced > 0 { return produced }
            if used == 0 { return 0 }
        }
    }

    private func step(
        _ index: Int, input: inout UnsafeRawBufferPointer, output: UnsafeMutableRawPointer, capacity: Int
    ) throws(ContentDecodingError) -> (used: Int, produced: Int) {
        var produced = 0
        var used = 0
        if index == 0 {
            let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            try run(index, base, base == nil ? 0 : input.count, output, capacity, &produced, &used)
            encodedBytes += Int64(used)
            if used > 0 { input = UnsafeRawBufferPointer(rebasing: input[used...]) }
            return (used, produced)
        }
        let start = bufferStarts[index - 1], end = bufferEnds[index - 1]
        let base = UnsafePointer(buffers[index - 1].baseAddress!.assumingMemoryBound(to: UInt8.self)) + start
        try run(index, base, end - start, output, capacity, &produced, &used)
        bufferStarts[index - 1] += used
        return (used, produced)
    }

    @discardableResult
    private func run(
        _ index: Int, _ base: UnsafePointer<UInt8>?, _ count: Int, _ output: UnsafeMutableRawPointer, _ capacity: Int,
        _ produced: inout Int, _ used: inout Int
    ) throws(ContentDecodingError) -> Int32 {
        var next = base
        var remaining = count
        var written = 0
        let code = an_decoder_step(stages[index], &next, &remaining, output.assumingMemoryBound(to: UInt8.self), capacity, &written)
        used = count - remaining
        produced = written
        if code == AN_DECODE_ERROR {
            let reason = String(cString: an_decoder_error(stages[index]))
            let error = ContentDecodingError(description: "cannot decode the \(codings.reversed()[index].token) body: \(reason)")
            failure = error
            throw error
        }
        return code
    }
}
#endif
