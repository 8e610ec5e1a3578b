import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download checked and prepared before anything is sent: its destination validated, its partial
/// file open and locked, and what is already on disk from an earlier attempt.
struct DownloadPlan {
    /// Bytes already on disk from an earlier attempt, and what they belong to.
    struct ResumePoint {
        /// The valid bytes at the start of the partial file.
        var bytesOnDisk: Int64 = 0
        /// What they belong to, with the `If-Range` value that validates them.
        var validators: ResumeValidators?
        /// The length of the whole representation, when known.
        var totalLength: Int64?
    }

    let request: URLRequest
    let url: URL
    let destination: DownloadDestination
    let options: DownloadOptions
    let partialURL: URL
    /// The caller asked for a byte range itself: its answer is the body, and it is not resumed.
    let hasCallerRange: Bool

    /// The resume record next to the partial file.
    var recordURL: URL { URL(fileURLWithPath: partialURL.path + TransferFiles.recordSuffix) }

    /// Validates the request and destination, opens and locks the partial file, and reads the resume
    /// point. Runs on the manager's executor (a few small file-system calls).
    ///
    /// - Throws: ``NetworkingError/Kind/fileWriteFailed`` for an existing destination without
    ///   `replaceExisting`, a missing directory without `createIntermediateDirectories`, or a
    ///   destination that is not a file URL; ``NetworkingError/Kind/unsupportedOperation`` when
    ///   another download writes the same partial file; the request's own validation errors.
    static func prepare(
        _ request: URLRequest, to destination: DownloadDestination, options: DownloadOptions
    ) throws(NetworkingError) -> (DownloadPlan, PartialFile, ResumePoint) {
        try RequestValidation.validate(request)
        guard let url = request.url else { throw NetworkingError(.invalidURL, "the request has no URL", request: request) }
        let create = options.createIntermediateDirectories
        let partialURL: URL
        switch destination {
        case .file(let file):
            try requireFileURL(file, request: request)
            if TransferFiles.isDirectory(file) {
                throw NetworkingError(.fileWriteFailed, "the destination \(file.path) is a directory", request: request, fileURL: file)
            }
            if !options.replaceExisting && TransferFiles.exists(file) {
                throw NetworkingError(
                    .fileWriteFailed, "the destination \(file.path) already exists (set replaceExisting to replace it)",
                    request: request, fileURL: file
                )
            }
            try TransferFiles.prepareDirectory(file.deletingLastPathComponent(), create: create, request: request)
            partialURL = URL(fileURLWithPath: file.path + TransferFiles.partialSuffix)
        case .directory(let directory):
            try requireFileURL(directory, request: request)
            try TransferFiles.prepareDirectory(directory, create: create, request: request)
            partialURL = directory.appendingPathComponent(".asyncnetworking-\(TransferFiles.key(for: url))\(TransferFiles.partialSuffix)")
        case .custom:
            // Not the shared temporary directory itself: the name is predictable, so it lives in a
            // directory only this user can write (see TransferFiles.privateDirectory).
            let parent = options.temporaryDirectory ?? FileManager.default.temporaryDirectory
            try TransferFiles.prepareDirectory(parent, create: true, request: request)
            let directory = try TransferFiles.privateDirectory(in: parent, request: request)
            partialURL = directory.appendingPathComponent(
                "\(TransferFiles.temporaryPrefix)download-\(TransferFiles.key(for: url))\(TransferFiles.partialSuffix)"
            )
        }
        let plan = DownloadPlan(
            request: request, url: url, destination: destination, options: options, partialURL: partialURL,
            hasCallerRange: request.value(forHTTPHeaderField: "Range") != nil
        )
        let file = try PartialFile(url: partialURL, request: request)
        do throws(NetworkingError) {
            return (plan, file, try plan.resumePoint(of: file))
        } catch {
            file.remove()
            throw error
        }
    }

    /// What the partial file holds that can be continued; anything else is discarded.
    private func resumePoint(of file: PartialFile) throws(NetworkingError) -> ResumePoint {
        let size = file.size
        if options.resumable, !hasCallerRange, size > 0, let record = DownloadRecord.load(from: recordURL),
           record.url == url.absoluteString, record.totalLength.map({ size <= $0 }) ?? true {
            return ResumePoint(bytesOnDisk: size, validators: ResumeValidators(record: record), totalLength: record.totalLength)
        }
        if size > 0 { try file.truncate(to: 0) }
        TransferFiles.remove(recordURL)
        return ResumePoint()
    }

    private static func requireFileURL(_ url: URL, request: URLRequest) throws(NetworkingError) {
        guard url.isFileURL else {
            throw NetworkingError(.fileWriteFailed, "the destination \(url.absoluteString) is not a file URL", request: request, fileURL: url)
        }
    }

    /// The final file URL, once the response is known.
    func finalURL(for response: HTTPURLResponse) throws(NetworkingError) -> URL {
        let suggested = SuggestedFilename.make(for: response, requestURL: url)
        switch destination {
        case .file(let file):
            return file
        case .directory(let directory):
            let target = directory.appendingPathComponent(suggested, isDirectory: false)
            // Belt and braces: the sanitised name is one component, so this always holds.
            guard target.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path else {
                throw NetworkingError(
                    .downloadMoveFailed, "the suggested name \(suggested) leaves \(directory.path)",
                    request: request, response: response, fileURL: partialURL
                )
            }
            return target
        case .custom(let decide):
            let target = decide(response, suggested)
            guard target.isFileURL, !TransferFiles.isDirectory(target) else {
                throw NetworkingError(
                    .downloadMoveFailed, "the destination \(target.absoluteString) is not a file URL; the bytes are in \(partialURL.path)",
                    request: request, response: response, fileURL: partialURL
                )
            }
            return target
        }
    }
}
