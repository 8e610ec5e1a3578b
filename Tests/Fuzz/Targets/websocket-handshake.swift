// Fuzz target: the client's reading of a WebSocket opening-handshake response: the head's end,
// the status line, the fields, Upgrade/Connection/Accept, the chosen subprotocol and the
// Sec-WebSocket-Extensions list with its permessage-deflate window bits.
//
// Properties: no trap or sanitizer report; an accepted handshake is a 101 whose negotiated
// window bits are in RFC 7692's ranges and within what was offered.
import Foundation
@testable import AsyncNetworkingCore

private let key = "dGhlIHNhbXBsZSBub25jZQ=="
private let accept = WebSocketHandshake.acceptValue(for: key)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let choice = input.byte()
    let offer: WebSocketCompression? = choice & 1 == 0 ? nil : WebSocketCompression(
        clientMaxWindowBits: choice & 2 == 0 ? nil : 9 + Int(choice >> 4) % 7, serverMaxWindowBits: choice & 4 == 0 ? nil : 8 + Int(choice >> 4) % 8
    )
    let handshake = WebSocketHandshake(
        url: URL(string: "ws://127.0.0.1:8080/chat")!, protocols: choice & 8 == 0 ? [] : ["chat", "superchat"], headers: [],
        compression: offer, key: key
    )
    var bytes = input.restArray()
    if choice & 0x80 != 0 {
        // A well-formed 101 before the fuzzed fields, so the fields and extensions get exercised.
        bytes = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n".utf8) + bytes
    }
    let end = WebSocketHandshake.headEnd(in: bytes)
    if let end { precondition(end >= 4 && end <= bytes.count) }
    let head = end.map { Array(bytes[..<($0 - 4)]) } ?? bytes
    if case .success(let outcome) = handshake.validate(head: head) {
        precondition(outcome.status == 101)
        if let deflate = outcome.deflate {
            precondition(offer != nil)
            precondition((9...15).contains(deflate.clientMaxWindowBits) && (8...15).contains(deflate.serverMaxWindowBits))
            if let asked = offer?.serverMaxWindowBits { precondition(deflate.serverMaxWindowBits <= asked) }
            if let asked = offer?.clientMaxWindowBits { precondition(deflate.clientMaxWindowBits <= asked) }
        }
        if let chosen = outcome.subprotocol { precondition(handshake.protocols.contains(chosen)) }
    }
    return 0
}
