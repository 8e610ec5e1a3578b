#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation

/// Decoding of one response body on the curl transport. libcurl decodes nothing here
/// (`CURLOPT_ACCEPT_ENCODING` is never set): its decoders turn a whole socket read into output at
/// once and keep what a paused transfer cannot take in a pause buffer of up to 64 MiB, so a
/// high-ratio body (a zstd bomb) was unbounded. Instead the write callback hands the encoded
/// bytes to a ``ContentDecoder`` that yields only what the receive window has room for.
///
/// What it holds is bounded: at most one delivery of curl's (≤ `CURLOPT_BUFFERSIZE`) of encoded
/// input, plus the decoders' own state (zlib 32 KiB, brotli ≤ 16 MiB, zstd ≤ 8 MiB windows).
final class CurlBodyDecoding {
    let decoder: ContentDecoder
    /// Encoded bytes taken from curl and not decoded yet (the window was full).
    private(set) var held: [UInt8] = []
    private var heldStart = 0
    /// The last decode filled its capacity: the decoder may have output left without more input.
    private var mayHaveOutput = false
    /// How many bytes at the start of curl's next delivery were already taken: after the write
    /// callback answers `CURL_WRITEFUNC_PAUSE`, curl delivers the same bytes again.
    var heldFromCurl = 0

    init(decoder: ContentDecoder) { self.decoder = decoder }

    /// A decoder for a response head's `Content-Encoding`, or `nil` when the body is delivered as
    /// received (no coding, or one this library cannot decode).
    static func forHead(_ head: ResponseHead) -> CurlBodyDecoding? {
        guard let codings = ContentCoding.codings(contentEncoding: head.values(of: "Content-Encoding")),
              let decoder = ContentDecoder(codings: codings) else { return nil }
        return CurlBodyDecoding(decoder: decoder)
    }

    /// Whether decoded output may still be waiting (held input, or a decoder that filled its room).
    var hasPending: Bool { heldStart < held.count || mayHaveOutput }

    func hold(_ bytes: UnsafeRawBufferPointer) {
        held.removeAll(keepingCapacity: true)
        held.append(contentsOf: bytes.bindMemory(to: UInt8.self))
        heldStart = 0
    }

    /// Decodes pending input into at most `room` bytes handed to `sink`; returns how many.
    func drain(room: Int, into sink: (UnsafeRawBufferPointer) -> Void) throws(ContentDecodingError) -> Int {
        let start = heldStart
        var thrown: ContentDecodingError?
        let (produced, used) = held.withUnsafeBytes { bytes -> (Int, Int) in
            var input = UnsafeRawBufferPointer(rebasing: bytes[start...])
            let before = input.count
            do throws(ContentDecodingError) {
                let produced = try decoder.decode(&input, capacity: room, into: sink)
                return (produced, before - input.count)
            } catch {
                thrown = error
                return (0, 0)
            }
        }
        if let thrown { throw thrown }
        heldStart += used
        if heldStart == held.count {
            held.removeAll(keepingCapacity: true)
            heldStart = 0
        }
        mayHaveOutput = produced == room
        if produced == 0, used == 0, heldStart < held.count {
            throw ContentDecodingError(description: "the \(decoder.name) decoder made no progress")
        }
        return produced
    }

    /// The body ended: why it is not a complete encoded stream, or `nil` when it is.
    var truncation: String? {
        if let failure = decoder.failure { return failure.description }
        guard !decoder.isComplete else { return nil }
        return "the \(decoder.name) body ended before its encoded stream did (truncated)"
    }
}

extension CurlFlowControl {
    /// How many decoded bytes the transfer may accept now, at most `limit`. 0 pauses the receive
    /// side exactly as a refused ``admit(_:)`` does (window full, turn quota used, or paused).
    mutating func room(upTo limit: Int) -> Int {
        if isReceivingPaused { return 0 }
        var room = Int64(limit)
        if let window { room = min(room, window - (received - consumed)) }
        if let turnQuota { room = min(room, turnQuota - receivedThisTurn) }
        guard room > 0 else {
            _ = admit(0)
            return 0
        }
        return Int(room)
    }
}

extension CurlTransfer {
    /// The most decoded bytes one decode step yields.
    static let decodeStep = 256 << 10

    /// `CURLOPT_WRITEFUNCTION` for an encoded body. Takes curl's bytes into ``CurlBodyDecoding``
    /// only once what it held before is decoded; answers `CURL_WRITEFUNC_PAUSE` while decoded
    /// output waits for room (curl then delivers the same bytes again, and the part already taken
    /// is skipped). Answers 0 (curl aborts, the completion reports `CURLE_BAD_CONTENT_ENCODING`)
    /// when the data is not a valid encoding.
    func didReceiveEncoded(_ buffer: UnsafeMutablePointer<CChar>, count: Int, decoding: CurlBodyDecoding) -> Int {
        let duplicate = min(decoding.heldFromCurl, count)
        guard drain(decoding) else { return 0 }
        if decoding.hasPending { return pauseForDecoding() }
        if duplicate == count {
            decoding.heldFromCurl -= count
            return count
        }
        decoding.hold(UnsafeRawBufferPointer(start: buffer + duplicate, count: count - duplicate))
        decoding.heldFromCurl = 0
        countWireBytes(count - duplicate)
        guard drain(decoding) else { return 0 }
        if decoding.hasPending {
            decoding.heldFromCurl = count
            return pauseForDecoding()
        }
        return count
    }

    private func pauseForDecoding() -> Int {
        if flow.receivingPausedForTurn { core.noteTurnPaused(self) }
        return Int(ANCURL_WRITEFUNC_PAUSE)
    }

    /// Decodes what is pending while the window has room; `false` when the data is invalid.
    private func drain(_ decoding: CurlBodyDecoding) -> Bool {
        while decoding.hasPending {
            let room = flow.room(upTo: Self.decodeStep)
            if room == 0 { return true }
            do {
                let produced = try decoding.drain(room: room) { appendDecoded($0) }
                if produced > 0 {
                    _ = flow.admit(produced)
                    lastActivity = .now
                }
            } catch {
                decodeFailure = error.description
                return false
            }
        }
        return true
    }
}
#endif
