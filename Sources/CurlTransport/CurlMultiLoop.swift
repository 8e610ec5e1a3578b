#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation

/// A libcurl multi handle driven by a thread of its own: the engine of the curl transport.
///
/// The thread runs `curl_multi_poll` / `curl_multi_perform` turns (see `CurlLoopCore`). Every
/// method here may be called from any thread: it queues a command under a lock and wakes the loop
/// with `curl_multi_wakeup`; the loop applies queued commands at the start of its next turn.
///
/// Events of one turn reach `handler` in **one call**, on the loop thread, as `[CurlEvent]` — so a
/// consumer can make one executor hop per batch. The handler must return quickly and must not
/// block (it stalls every transfer of this loop while it runs); it may call this loop's methods.
///
/// Every transfer started gets exactly one ``CurlEvent/completed(_:_:)``: when curl finishes it,
/// when it is cancelled, or at shutdown.
package final class CurlMultiLoop: Sendable {
    /// Settings of the multi handle and the loop.
    package struct Configuration: Sendable, Hashable {
        package init() {}

        /// `CURLMOPT_MAX_HOST_CONNECTIONS`: open connections per host; more transfers wait inside
        /// curl for one. Default 6. 0 means no limit.
        package var maxHostConnections = 6
        /// `CURLMOPT_MAX_CONCURRENT_STREAMS`: streams per HTTP/2 connection (the server's
        /// limit applies too); past it curl opens another connection. Default 100 (curl's).
        package var maxConcurrentStreams = 100
        /// `CURLMOPT_MAX_TOTAL_CONNECTIONS`. Default 0 (no limit).
        var maxTotalConnections = 0
        /// `CURLMOPT_MAXCONNECTS`: idle connections kept open for reuse. Default 64 (curl's own
        /// default follows the number of transfers added at the moment, so with transfers coming
        /// and going it closed kept-alive connections it would need a moment later).
        var maxCachedConnections = 64
        /// The longest `curl_multi_poll` sleeps when nothing happens (curl wakes earlier for its
        /// own timers and the loop for commands). Default 1000 ms.
        var pollTimeoutMilliseconds: Int32 = 1000
        /// Idle easy handles kept for reuse. Default 16.
        var easyHandlePoolSize = 16
        /// The thread's name. Default `AsyncNetworking curl`.
        var threadName = "AsyncNetworking curl"

        static let `default` = Configuration()
    }

    private let mailbox: CurlLoopMailbox
    /// Runs jobs on the loop thread: the executor of the ``SessionManager`` that owns this loop.
    package let executor: CurlLoopExecutor
    /// The loop thread as a task executor (see ``CurlLoopTaskExecutor``).
    package let taskExecutor: CurlLoopTaskExecutor

    /// Loads libcurl, creates the multi handle and starts the loop thread.
    ///
    /// - Throws: ``CurlLibraryError`` when `libcurl.so.4` cannot be loaded or the multi handle
    ///   cannot be created.
    /// `fallback` is where ``executor`` runs jobs once the loop thread has exited (default: a
    /// serial queue of its own).
    package init(
        configuration: Configuration = .default,
        fallback: DispatchQueue = DispatchQueue(label: "AsyncNetworking.curl.fallback"),
        handler: @escaping @Sendable ([CurlEvent]) -> Void
    ) throws(CurlLibraryError) {
        try CurlLibrary.load()
        guard let pointer = ancurl_multi_init() else {
            throw CurlLibraryError(message: "curl_multi_init in \(CurlLibrary.libraryName) failed")
        }
        _ = ancurl_multi_setopt_long(pointer, ANCURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxHostConnections)
        _ = ancurl_multi_setopt_long(pointer, ANCURLMOPT_MAXCONNECTS, max(1, configuration.maxCachedConnections))
        // Multiplexing is libcurl's default since 7.62; set it so it never depends on the build.
        _ = ancurl_multi_setopt_long(pointer, ANCURLMOPT_PIPELINING, Int(ANCURLPIPE_MULTIPLEX))
        _ = ancurl_multi_setopt_long(
            pointer, ANCURLMOPT_MAX_CONCURRENT_STREAMS, min(max(1, configuration.maxConcurrentStreams), Int(Int32.max))
        )
        if configuration.maxTotalConnections > 0 {
            _ = ancurl_multi_setopt_long(pointer, ANCURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxTotalConnections)
        }
        let multi = CurlMultiHandle(pointer: pointer)
        let mailbox = CurlLoopMailbox(multi: multi)
        self.mailbox = mailbox
        let executor = CurlLoopExecutor(mailbox: mailbox, fallback: fallback)
        self.executor = executor
        taskExecutor = CurlLoopTaskExecutor(loop: executor)
        let thread = Thread {
            mailbox.markLoopThread()
            let core = CurlLoopCore(
                multi: multi.pointer, mailbox: mailbox, executor: executor, configuration: configuration, handler: handler
            )
            core.run()
            mailbox.retireJobs { executor.run($0, onFallback: true) }
            mailbox.markStopped()
        }
        thread.name = configuration.threadName
        thread.start()
    }

    /// Asks the loop to shut down when the last reference goes (transfers get cancelled completions).
    deinit {
        mailbox.requestShutdown()
    }

    /// Starts a transfer; its events follow through the handler.
    ///
    /// - Throws: ``CurlRequestError`` for a request that cannot be sent (see
    ///   ``CurlRequest/validate()``) or after ``shutdown()``; nothing was started then.
    package func start(_ request: CurlRequest) throws(CurlRequestError) -> CurlTransferID {
        try request.validate()
        guard let id = mailbox.postStart(request) else { throw CurlRequestError("the curl loop is shut down") }
        return id
    }

    /// Cancels a transfer: it is removed from curl and completes with ``CurlCompletion/wasCancelled``
    /// (unless it completed first). Unknown or finished ids are ignored.
    package func cancel(_ id: CurlTransferID) { mailbox.post(.cancel(id)) }

    /// Stops reading the transfer's response: the server feels TCP back-pressure once the socket
    /// buffers fill; other transfers are not affected.
    package func pauseReceiving(_ id: CurlTransferID) { mailbox.post(.pauseReceiving(id)) }

    /// Undoes ``pauseReceiving(_:)``; bytes curl held back arrive first.
    package func resumeReceiving(_ id: CurlTransferID) { mailbox.post(.resumeReceiving(id)) }

    /// Reports that the consumer has used `totalBytes` of the transfer's body so far (a running
    /// total). With ``CurlTransferOptions/receiveWindow`` set, the transfer pauses itself once it has
    /// delivered `window` bytes more than were consumed, and resumes when this report makes room.
    package func didConsume(_ id: CurlTransferID, totalBytes: Int64) { mailbox.post(.consumed(id, totalBytes: totalBytes)) }

    /// Stops sending the request body until ``resumeSending(_:)``.
    package func pauseSending(_ id: CurlTransferID) { mailbox.post(.pauseSending(id)) }

    /// Resumes sending: after ``pauseSending(_:)``, or after a ``CurlBodyProducer`` answered
    /// ``CurlBodyRead/wouldBlock`` (curl asks it again).
    package func resumeSending(_ id: CurlTransferID) { mailbox.post(.resumeSending(id)) }

    /// Starts shutting down without waiting: every transfer gets a cancelled completion, every
    /// handle is freed, and the thread exits. Later ``start(_:)`` calls throw. Idempotent.
    package func requestShutdown() { mailbox.requestShutdown() }

    /// Shuts down (see ``requestShutdown()``) and suspends until the loop thread has delivered
    /// its last batch and exited.
    func shutdown() async {
        mailbox.requestShutdown()
        await mailbox.waitUntilStopped()
    }

    /// The counters as of the end of the loop's last turn.
    var stats: CurlLoopStats { mailbox.stats }
}
#endif
