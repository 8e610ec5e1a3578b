import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records transfers as an HTTP Archive (HAR 1.2) that browsers' developer tools and HAR viewers
/// open: one entry per request sent — each redirect hop its own entry with its `redirectURL` — with
/// request and response headers, query, status, sizes, and timings from the transfer's metrics
/// (libcurl's phases on the curl transport; see <doc:HAR>).
///
/// Secrets are redacted as ``LoggingMonitor`` redacts them, unless ``showsSecrets``: the values of
/// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` become `<redacted>`, URLs
/// lose their user and password, and query values (in `url` and `queryString`) become `…`.
/// Bodies are never recorded (only their sizes).
///
/// Feed it either a manager's activity (every transfer of the manager) or a pipeline's events
/// (as an ``EventMonitor``) — not both for the same requests, or each is recorded twice:
///
/// ```swift
/// let har = HARRecorder()
/// let recording = await har.record(manager)      // until the manager is invalidated
/// … transfers …
/// await manager.invalidate()
/// await recording.value
/// try har.write(to: URL(fileURLWithPath: "run.har"))
/// ```
///
/// Thread safety: its state is behind a lock; any task may feed or read it.
public final class HARRecorder: EventMonitor, Sendable {
    /// Prints credential header values and query values as they are. Default `false`.
    public let showsSecrets: Bool
    /// The `log.creator` of the document.
    public let creatorName: String
    /// The `log.creator.version` of the document.
    public let creatorVersion: String

    private struct Pending {
        var request: URLRequest
        var started: Date
        var response: HTTPURLResponse?
    }

    private struct State {
        var pending: [String: Pending] = [:]
        var entries: [HAREntry] = []
    }

    /// Guards the requests in flight and the finished entries.
    private let state = SanitizedMutex(State())

    /// Creates an empty recorder.
    ///
    /// - Parameters:
    ///   - creatorName: `log.creator.name`. Default `AsyncNetworking`.
    ///   - creatorVersion: `log.creator.version`. Default ``AsyncNetworkingVersion/current``.
    ///   - showsSecrets: see ``showsSecrets``.
    public init(creatorName: String = "AsyncNetworking", creatorVersion: String = AsyncNetworkingVersion.current, showsSecrets: Bool = false) {
        self.creatorName = creatorName
        self.creatorVersion = creatorVersion
        self.showsSecrets = showsSecrets
    }

    /// How many entries are recorded (finished requests and redirect hops).
    public var entryCount: Int { state.withLock { $0.entries.count } }

    /// Records every transfer `manager` runs from now on, from its activity stream, until the
    /// manager is invalidated or the returned task is cancelled. Await the task after invalidating
    /// the manager to be sure every event was recorded. A reader more than 65,536 events behind
    /// loses the oldest (see ``TransferActivityStream/droppedCount``).
    public func record(_ manager: SessionManager) async -> Task<Void, Never> {
        let stream = await manager.transferActivity(bufferingNewest: 65_536)
        return Task { [self] in
            for await event in stream { record(event) }
        }
    }

    /// Records one event of a manager's activity (``SessionManager/transferActivity(bufferingNewest:includingData:)``).
    public func record(_ activity: TransferActivity) {
        let builder = HAREntryBuilder(showsSecrets: showsSecrets)
        switch activity {
        case .started(let id, let request):
            state.withLock { $0.pending["t\(id)"] = Pending(request: request, started: Date()) }
        case .response(let id, let response):
            state.withLock { $0.pending["t\(id)"]?.response = response }
        case .redirected(let id, let response, let newRequest):
            state.withLock { state in
                let key = "t\(id)"
                guard let pending = state.pending[key] else { return }
                var hop = builder.entry(
                    request: pending.request, started: pending.started, response: response, metrics: nil,
                    redirectURL: newRequest.url ?? response.url
                )
                // No metrics of its own: the time from the hop's start to its response, all `wait`.
                let elapsed = max(0, Date().timeIntervalSince(pending.started) * 1000)
                hop.time = elapsed
                hop.timings.wait = elapsed
                state.entries.append(hop)
                state.pending[key] = Pending(request: newRequest, started: Date())
            }
        case .completed(let completion):
            state.withLock { state in
                let pending = state.pending.removeValue(forKey: "t\(completion.id)")
                state.entries.append(builder.entry(
                    request: pending?.request ?? completion.originalRequest,
                    started: pending?.started ?? completion.metrics?.startDate ?? Date(),
                    response: completion.response ?? pending?.response, metrics: completion.metrics, error: completion.error
                ))
            }
        case .suspended, .uploadProgress, .downloadProgress, .downloadResumed, .invalidated, .data:
            break
        }
    }

    /// Records one step of a pipeline request (``EventMonitor``): an entry per attempt.
    public func receive(_ event: RequestEvent) {
        let builder = HAREntryBuilder(showsSecrets: showsSecrets)
        switch event {
        case .started(let id, let attempt, let request):
            state.withLock { $0.pending["r\(id)-\(attempt)"] = Pending(request: request, started: Date()) }
        case .response(let id, let attempt, let response, let metrics):
            state.withLock { state in
                guard let pending = state.pending.removeValue(forKey: "r\(id)-\(attempt)") else { return }
                state.entries.append(builder.entry(request: pending.request, started: pending.started, response: response, metrics: metrics))
            }
        case .attemptFailed(let id, let attempt, let error):
            state.withLock { state in
                guard let pending = state.pending.removeValue(forKey: "r\(id)-\(attempt)") else { return }
                state.entries.append(builder.entry(
                    request: pending.request, started: pending.started, response: error.response, metrics: nil, error: error
                ))
            }
        default:
            break
        }
    }

    /// The HAR 1.2 document of every entry recorded so far, in the order requests finished:
    /// UTF-8 JSON, pretty-printed.
    public func harData() throws -> Data {
        let entries = state.withLock { $0.entries }
        let document = HARDocument(log: .init(creator: .init(name: creatorName, version: creatorVersion), entries: entries))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    /// Writes ``harData()`` to `url`, atomically.
    public func write(to url: URL) throws {
        try harData().write(to: url, options: .atomic)
    }
}
