// Fuzz target: the text/event-stream decoder: the line splitter (CR, LF, CRLF, a CR at a chunk's
// end) and the server-sent event parser (fields, BOM, `retry:` of any length, `id` with NUL),
// then the reconnection wait a `retry:` asks for.
//
// Properties: no trap or sanitizer report; the events and the last ID do not depend on how the
// stream was cut (checked for a quarter of the inputs); no line or event passes its limit; every
// wait is inside the configured bounds.
import Foundation
@testable import AsyncNetworkingCore

private func events(_ pieces: [ArraySlice<UInt8>], maxLine: Int, maxEvent: Int) -> (events: [ServerSentEvent], parser: ServerSentEventParser, failed: Bool) {
    var splitter = LineSplitter(maxLineLength: maxLine)
    var parser = ServerSentEventParser(maxEventSize: maxEvent)
    var events: [ServerSentEvent] = []
    do {
        for piece in pieces {
            splitter.feed(Data(piece))
            while let line = try splitter.nextLine() {
                precondition(line.count <= maxLine)
                if let event = try parser.parse(line: line) {
                    precondition(event.data.utf8.count <= maxEvent * 3) // U+FFFD may replace one byte
                    events.append(event)
                }
            }
        }
    } catch {
        return (events, parser, true)
    }
    return (events, parser, false)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let maxLine = input.pick([1, 16, 256, 1 << 20])
    let maxEvent = input.pick([1, 16, 256, 1 << 20])
    let cut = input.byte()
    let attempts = Int(input.byte())
    let bytes = input.restArray()
    let pieces = events(chunks(bytes, size: cut), maxLine: maxLine, maxEvent: maxEvent)
    if cut & 6 == 0 { // a quarter of the inputs: cut or whole, the same events (a second pass costs a run)
        let whole = events([bytes[...]], maxLine: maxLine, maxEvent: maxEvent)
        precondition(whole.failed == pieces.failed)
        precondition(whole.events == pieces.events && whole.parser.lastEventID == pieces.parser.lastEventID)
        precondition(whole.parser.reconnectionTime == pieces.parser.reconnectionTime)
    }
    let configuration = EventSource.Configuration()
    let wait = configuration.delay(serverRetry: pieces.parser.reconnectionTime, failedAttempts: attempts, jitter: Double(cut) / 255)
    precondition(wait >= configuration.minimumReconnectionTime && wait <= configuration.maxReconnectionTime)
    return 0
}
