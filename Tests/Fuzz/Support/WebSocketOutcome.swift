// Compiled into every fuzz target (Support/*.swift): what a WebSocket connection machine reports
// for received bytes, as the two WebSocket targets compare it.
@testable import AsyncNetworkingCore

/// The events `pieces` produce in a fresh machine, reduced to what does not depend on how the bytes
/// were cut: messages (kind and size), pongs, the peer's close code, and whether it failed — not
/// with which code, as which rule fails first may depend on the cut (a continuation's bad UTF-8 is
/// seen inside the frame before its size is). Checks that no message passes `limit` and that a
/// failure is 1002, 1007 or 1009.
func webSocketOutcome(_ pieces: [ArraySlice<UInt8>], limit: Int, deflate: PerMessageDeflateParameters? = nil) -> [String] {
    var machine = WebSocketConnectionMachine(maximumMessageSize: limit, deflate: deflate)
    var seen: [String] = []
    for piece in pieces {
        for event in piece.withUnsafeBytes({ machine.receive($0) }) {
            switch event {
            case .message(let message):
                switch message {
                case .text(let text): precondition(text.utf8.count <= limit); seen.append("text \(text.utf8.count)")
                case .binary(let data): precondition(data.count <= limit); seen.append("binary \(data.count)")
                }
            case .pong(let payload): seen.append("pong \(payload.count)")
            case .peerClosed(let code, _): seen.append("closed \(code?.rawValue ?? 0)")
            case .failed(let error):
                precondition([1002, 1007, 1009].contains(error.code.rawValue))
                seen.append("failed")
            case .write, .reply, .closeHandshakeComplete: break // replies (pongs owed) depend on when the machine is asked, not on the bytes
            }
        }
        precondition(machine.bufferedByteCount >= 0)
    }
    return seen
}
