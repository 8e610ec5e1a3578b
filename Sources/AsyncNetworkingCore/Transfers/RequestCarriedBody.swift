import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body a `URLRequest` carries itself — `httpBody` or `httpBodyStream` — as the upload of a
/// transfer started from a door that takes only a request (``SessionManager/data(for:options:)``,
/// ``SessionManager/dataTask(with:options:)``, ``SessionManager/stream(for:options:)``,
/// ``SessionManager/fetch(_:options:)``, ``SessionManager/download(for:to:options:)``, the batches,
/// and so every ``HTTPClient`` call, whose adapters may set either).
///
/// **The rule:** every body is sent whole on every transport, or refused with a typed error before
/// anything is sent — never dropped, never cut short.
///
/// - `httpBody` is sent as it is, with its length (`Content-Length`), and re-sent whole after a
///   307/308 or a credential retry.
/// - `httpBodyStream` is read while it is sent, chunked (as URLSession sends it); a declared
///   `Content-Length` is removed from the request (sending both makes servers answer 400) and kept
///   for upload progress. The stream is read once: a request that must be sent again (a 307/308,
///   a retry with a credential after a 401/407) fails with
///   ``NetworkingError/Kind/bodyStreamNotReplayable`` instead of sending an empty or partial body.
///   A stream that was already opened (read by an earlier call, or by the caller) is refused with
///   the same error before anything is sent: what is left of it is not the whole body.
///
/// Doors that take their body as an argument (`upload(for:from:)`, `fromFile:`, sequences,
/// streams, multipart) send that body; the request's own `httpBody` and `httpBodyStream` are
/// ignored there, as URLSession's upload tasks ignore them.
enum RequestCarriedBody {
    /// The request to send and its upload source.
    static func split(_ request: URLRequest) throws(NetworkingError) -> (request: URLRequest, upload: UploadSource) {
        if let body = request.httpBody { return (request, .data(body)) }
        guard let stream = request.httpBodyStream else { return (request, .none) }
        // A request refused anyway must not use the stream up.
        try RequestValidation.validate(request)
        guard stream.streamStatus == .notOpen, claim(stream) else {
            throw NetworkingError(
                .bodyStreamNotReplayable,
                "the request's httpBodyStream was already opened or handed to another transfer, so it cannot be sent whole (give each request a new stream)",
                request: request
            )
        }
        let declared = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        var sent = request
        sent.httpBodyStream = nil
        sent.setValue(nil, forHTTPHeaderField: "Content-Length")
        // The request (a value the caller keeps) shares the stream; from here only the transfer
        // reads it, once (BodyStreamProducer.once hands it to the first attempt only).
        nonisolated(unsafe) let handedOver = stream
        return (sent, .stream(StreamedBody(.once(handedOver, length: declared))))
    }

    /// Streams handed to a transfer, by identity, held weakly: one stream in two requests sent at
    /// once would have its bytes split between them. An entry whose stream is gone is free again.
    private static let claimed = SanitizedMutex<[ObjectIdentifier: ClaimedStream]>([:])

    /// Whether `stream` was not handed to a transfer before (it is now).
    private static func claim(_ stream: InputStream) -> Bool {
        let key = ObjectIdentifier(stream)
        let entry = ClaimedStream(stream)
        return claimed.withLock { table in
            if table.count >= 64 { table = table.filter { $0.value.isAlive } }
            if let existing = table[key], existing.isAlive { return false }
            table[key] = entry
            return true
        }
    }
}

/// A weak reference to a claimed stream. (`@unchecked`: only the weak reference is shared, and
/// only compared with `nil` under the table's lock.)
private struct ClaimedStream: @unchecked Sendable { // reason: a weak InputStream reference, only tested for nil under the lock
    weak var stream: InputStream?

    init(_ stream: InputStream) { self.stream = stream }

    var isAlive: Bool { stream != nil }
}
