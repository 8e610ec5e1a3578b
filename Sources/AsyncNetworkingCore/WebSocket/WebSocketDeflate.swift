import CCurlShim

/// The tail RFC 7692 §7.2.1 strips from each compressed message (an empty stored block).
private let syncTail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
private let chunkSize = 64 * 1024

/// Compresses outgoing messages for permessage-deflate: raw deflate, each message ended with a
/// sync flush whose `00 00 FF FF` tail is removed (RFC 7692 §7.2.1).
///
/// `@unchecked Sendable`: the zlib stream is used by one sender at a time — the one holding its
/// connection's send turn (``WebSocketChannel/send(_:)``), which is passed on under the channel's
/// lock, so each use happens-after the previous one.
final class WebSocketDeflater: @unchecked Sendable { // reason: a z_stream pointer, used only by the holder of the connection's send turn
    private let stream: UnsafeMutableRawPointer
    private let resetsEachMessage: Bool

    /// A compressor with a window of 2^`windowBits` bytes, or `nil` when zlib is unavailable.
    init?(windowBits: Int, noContextTakeover: Bool) {
        guard let stream = an_ws_deflate_create(Int32(windowBits)) else { return nil }
        self.stream = stream
        resetsEachMessage = noContextTakeover
    }

    deinit { an_ws_deflate_free(stream) }

    /// One message's compressed payload.
    func compress(_ message: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(message.count / 2 + 64)
        var scratch = [UInt8](repeating: 0, count: chunkSize)
        message.withUnsafeBufferPointer { input in
            var offset = 0
            while true {
                var consumed = 0
                var produced = 0
                let base = input.baseAddress.map { $0 + offset }
                let status = scratch.withUnsafeMutableBufferPointer { out in
                    an_ws_deflate(stream, base, input.count - offset, &consumed, out.baseAddress, out.count, &produced, 1)
                }
                offset += consumed
                output.append(contentsOf: scratch[0..<produced])
                if status != 0 || (offset >= input.count && produced < scratch.count) { break }
            }
        }
        if output.count >= 4, Array(output.suffix(4)) == syncTail { output.removeLast(4) }
        // Nothing came out (an empty message right after a flush): send an empty stored block's
        // first byte, so the receiver's appended tail makes a whole block (RFC 7692 §7.2.3.6).
        if output.isEmpty { output = [0x00] }
        if resetsEachMessage { _ = an_ws_deflate_reset(stream) }
        return output
    }
}

/// Decompresses incoming messages for permessage-deflate, frame by frame, so a message that
/// inflates past its limit fails as soon as it does (a bomb never fills memory).
///
/// `@unchecked Sendable`: as ``WebSocketDeflater``, owned by one machine under one lock.
final class WebSocketInflater: @unchecked Sendable { // reason: a z_stream pointer, used only by its machine under one lock
    private let stream: UnsafeMutableRawPointer
    private let resetsEachMessage: Bool
    private var scratch = [UInt8](repeating: 0, count: chunkSize)

    /// A decompressor accepting windows up to 2^15 bytes, or `nil` when zlib is unavailable.
    init?(noContextTakeover: Bool) {
        guard let stream = an_ws_inflate_create(15) else { return nil }
        self.stream = stream
        resetsEachMessage = noContextTakeover
    }

    deinit { an_ws_inflate_free(stream) }

    /// Inflates one frame's payload, appending to `output`; fails with 1009 when `output` would
    /// pass `limit` bytes and with 1007 on corrupt data.
    func inflate(_ input: [UInt8], into output: inout [UInt8], limit: Int) throws(WebSocketProtocolError) {
        guard !input.isEmpty else { return }
        var failure: WebSocketProtocolError?
        input.withUnsafeBufferPointer { input in
            var offset = 0
            while true {
                var consumed = 0
                var produced = 0
                let status = scratch.withUnsafeMutableBufferPointer { out in
                    an_ws_inflate(stream, input.baseAddress! + offset, input.count - offset, &consumed, out.baseAddress, out.count, &produced)
                }
                offset += consumed
                if produced > 0 {
                    if output.count + produced > limit {
                        failure = .tooBig("a compressed message inflated past the limit of \(limit) bytes")
                        return
                    }
                    output.append(contentsOf: scratch[0..<produced])
                }
                if status < 0 {
                    failure = .invalidData("the compressed message is corrupt (zlib \(status))")
                    return
                }
                if status == 2 { _ = an_ws_inflate_reset(stream) } // a final block: the next starts afresh
                if offset >= input.count, produced < scratch.count { return }
                if status == 1, consumed == 0, produced == 0 { return }
            }
        }
        if let failure { throw failure }
    }

    /// Ends a message: inflates the `00 00 FF FF` tail the sender removed.
    func finishMessage(into output: inout [UInt8], limit: Int) throws(WebSocketProtocolError) {
        try inflate(syncTail, into: &output, limit: limit)
        if resetsEachMessage { _ = an_ws_inflate_reset(stream) }
    }
}
