import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes a download's body to its partial file as it arrives, and moves the file into place when
/// the transfer succeeds: the ``TransferSink`` behind every download.
///
/// Downloads are data tasks, not URLSession download tasks: on Linux those leave their temporary
/// files behind, write a 404's error page as the file, produce no resume data and corrupt the file
/// when suspended. Here every chunk is written with `pwrite` at its offset on the manager's
/// executor, so the bytes on disk are always exact: the next attempt (after a pause, a cancel, a
/// dropped connection or a restart) asks for the rest with `Range` and `If-Range`.
final class DownloadSink: TransferSink {
    /// Where the result goes.
    enum Output {
        /// A ``TransferHandle``'s event stream.
        case events(EventChannel)
        /// One awaiting caller of ``SessionManager/download(for:to:options:)``.
        case awaiting(UnsafeContinuation<(URL, HTTPURLResponse), any Error>)
    }

    let plan: DownloadPlan
    let output: Output
    private let file: PartialFile

    // What is on disk (survives pauses).
    private(set) var bytesOnDisk: Int64
    private var validators: ResumeValidators?
    private var totalLength: Int64?

    // The current attempt.
    private var rangeStart: Int64?
    private var writeOffset: Int64 = 0
    private var rejected: (response: HTTPURLResponse, body: Data)?
    private var finalResponse: HTTPURLResponse?
    private var sentResponse = false
    private var restarts = 0
    /// Bytes written over every attempt, and what flow control was last told.
    private var written: Int64 = 0
    private var lastReported: Int64 = 0
    private var consumptionReport: (@Sendable (Int64) -> Void)?

    /// Reports the outcome of a download finished off the executor (a copy across file systems),
    /// for the session-wide `transferCompleted` event. Set by the manager at registration.
    var reportLater: (@Sendable (TransferCompletion) -> Void)?

    /// The last response's continuation of bytes on disk (an accepted 206), for the activity stream.
    private(set) var lastResumption: (offset: Int64, expectedTotal: Int64?)?
    /// The file at its destination, once moved there.
    var placedFileURL: URL?

    /// For tests: called on the manager's executor after each chunk reached the disk, so a test can
    /// pause or cancel at an exact byte count while the task is certainly still running.
    var didWriteChunk: ((_ bytesOnDisk: Int64, _ transfer: TransferState) -> Void)?

    init(plan: DownloadPlan, file: PartialFile, resumePoint: DownloadPlan.ResumePoint, output: Output) {
        self.plan = plan
        self.file = file
        self.output = output
        bytesOnDisk = resumePoint.bytesOnDisk
        validators = resumePoint.validators
        totalLength = resumePoint.totalLength
    }

    /// Released before the transfer finished (its manager is gone): an event stream ends instead
    /// of waiting forever (a no-op when it already ended). An awaiting caller holds the manager, so
    /// it cannot be waiting here.
    deinit {
        if case .events(let channel) = output {
            channel.fail(NetworkingError(.sessionInvalidated, "the session manager was released"))
        }
    }

    var wantsProgress: Bool {
        if case .events = output { return true }
        return false
    }

    var supportsPause: Bool { true }

    // MARK: Launch

    func request(forLaunching request: URLRequest, transfer: TransferState) throws(NetworkingError) -> URLRequest {
        var request = request
        rejected = nil
        finalResponse = nil
        // Byte offsets must be offsets in the stored representation, not in a compressed stream.
        if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        guard !plan.hasCallerRange, bytesOnDisk > 0, let validator = validators?.ifRange else {
            rangeStart = nil
            writeOffset = 0
            try discardBytesOnDisk()
            return request
        }
        // A complete file still asks for its last byte: a 206 confirms it, a 200 replaces it, and a
        // 416 (which would not say whether the validator matched) never happens.
        let start = totalLength.map { min(bytesOnDisk, max(0, $0 - 1)) } ?? bytesOnDisk
        request.setValue("bytes=\(start)-", forHTTPHeaderField: "Range")
        request.setValue(validator, forHTTPHeaderField: "If-Range")
        rangeStart = start
        writeOffset = start
        return request
    }

    // MARK: Response and body

    func didReceiveResponse(for transfer: TransferState) -> NetworkingError? {
        guard let response = transfer.response else { return Self.unrepresentable(transfer) }
        rejected = nil
        lastResumption = nil
        let status = response.statusCode
        if status == 206, let start = rangeStart {
            // Only a 206 that provably continues the bytes on disk is appended: every validator it
            // carries matches, exactly the offset asked for, the same complete length. A server that
            // ignored If-Range after the resource changed (or mislabels its range) would otherwise
            // splice two versions (ResumeValidators).
            guard let range = ResumeHeaders.contentRange(of: response), range.start == start,
                  ResumeValidators.sameCompleteLength(range.total, known: totalLength),
                  ResumeHeaders.isIdentityEncoded(response), validators?.continue206(response) == true
            else {
                return restartWithoutRange(transfer, because: "the 206 does not continue the bytes on disk")
            }
            writeOffset = range.start
            if let total = range.total { totalLength = total }
            lastResumption = (range.start, totalLength)
        } else if (200..<300).contains(status) && (status != 206 || plan.hasCallerRange || rangeStart == nil) {
            if status == 206 && !plan.hasCallerRange {
                return restartWithoutRange(transfer, because: "a 206 answered a request without Range")
            }
            // The whole body: the server ignored the range or the representation changed.
            do { try discardBytesOnDisk() } catch { return error }
            writeOffset = 0
            let identity = ResumeHeaders.isIdentityEncoded(response)
            let kept = ResumeValidators(of: response)
            validators = identity && !plan.hasCallerRange && kept.ifRange != nil ? kept : nil
            totalLength = identity ? TransferState.expectedBodyLength(of: response) : nil
            if let error = saveRecord() { return error }
        } else if status == 416, rangeStart != nil {
            return restartWithoutRange(transfer, because: "the server could not satisfy the range")
        } else {
            // An error status: its body is kept for the error, never written to the file.
            rejected = (response, Data())
            return nil
        }
        finalResponse = response
        if !sentResponse, case .events(let channel) = output {
            sentResponse = true
            channel.send(.response(response))
        }
        return nil
    }

    func didReceive(data: Data, for transfer: TransferState) -> NetworkingError? {
        if let (response, kept) = rejected {
            var body = kept
            rejected = nil
            let room = max(0, plan.options.maxErrorBodyBytes - body.count)
            body.append(data.prefix(room))
            rejected = (response, body)
            return data.count > room ? statusError(response, body: body, transfer: transfer) : nil
        }
        do {
            try file.write(data, at: writeOffset)
        } catch {
            return error
        }
        writeOffset += Int64(data.count)
        bytesOnDisk = max(bytesOnDisk, writeOffset)
        written += Int64(data.count)
        if let report = consumptionReport, written - lastReported >= Self.window / 4 {
            lastReported = written
            report(written)
        }
        didWriteChunk?(bytesOnDisk, transfer)
        return nil
    }

    /// Flow control (curl): at most this many bytes wait on the executor to be written.
    static let window = 1 << 20

    func flowControlWindow(report: @escaping @Sendable (Int64) -> Void) -> Int? {
        consumptionReport = report
        lastReported = written
        return Self.window
    }

    var consumedBytes: Int64 { written }

    func didProgress(_ progress: TransferProgress, upload: Bool) {
        guard case .events(let channel) = output else { return }
        if upload {
            channel.send(progress: progress, upload: true)
        } else if rejected == nil {
            channel.send(progress: TransferProgress(completedBytes: bytesOnDisk, expectedBytes: totalLength), upload: false)
        }
    }

    func didPause(transfer: TransferState) {
        // Whatever was under way (a restart, an error body) starts over on resume.
        transfer.restartRequested = false
        rejected = nil
    }

    // MARK: Helpers

    /// Drops the bytes on disk and starts the transfer again with a plain request, at most twice.
    private func restartWithoutRange(_ transfer: TransferState, because reason: String) -> NetworkingError? {
        guard restarts < 2 else {
            return NetworkingError(
                .transport(.badServerResponse), "\(reason), again after restarting the download",
                request: transfer.originalRequest, response: transfer.response
            )
        }
        restarts += 1
        do {
            validators = nil
            totalLength = nil
            try discardBytesOnDisk()
        } catch {
            return error
        }
        // The core stops this attempt and sends the current request again once it has ended (its
        // later events are ignored).
        transfer.restartRequested = true
        return nil
    }

    private func discardBytesOnDisk() throws(NetworkingError) {
        if bytesOnDisk > 0 || file.size > 0 { try file.truncate(to: 0) }
        bytesOnDisk = 0
        TransferFiles.remove(plan.recordURL)
    }

    /// Records what the bytes on disk belong to, for a later attempt.
    private func saveRecord() -> NetworkingError? {
        guard plan.options.resumable, let validators, let validator = validators.ifRange else { return nil }
        do {
            try DownloadRecord(
                url: plan.url.absoluteString, validator: validator, totalLength: totalLength,
                etag: validators.etag, lastModified: validators.lastModified
            ).save(to: plan.recordURL)
            return nil
        } catch {
            return error
        }
    }

    func statusError(_ response: HTTPURLResponse, body: Data, transfer: TransferState) -> NetworkingError {
        NetworkingError(
            .unacceptableStatusCode(response.statusCode),
            "the server answered \(response.statusCode); nothing was written to the destination",
            request: transfer.originalRequest, response: response, body: body
        )
    }

    // MARK: Completion state, for DownloadSink+Completion

    var partialFile: PartialFile { file }
    var hasValidator: Bool { validators?.ifRange != nil }
    var expectedLength: Int64? { totalLength }
    var rejectedResponse: (response: HTTPURLResponse, body: Data)? { rejected }
    var response: HTTPURLResponse? { finalResponse }
    var completedResponse: HTTPURLResponse? { finalResponse ?? rejected?.response }
    var completedFileURL: URL? { placedFileURL }

    func observedDownloadProgress(for transfer: TransferState) -> TransferProgress? {
        TransferProgress(completedBytes: bytesOnDisk, expectedBytes: totalLength)
    }
}
