import BenchmarkSupport
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// download-1g and upload-1g, file to file, both sides.
enum FileVariants {
    /// The upload source the parent writes once into the work directory.
    static func uploadSource(in workdir: URL) -> URL {
        workdir.appendingPathComponent("upload-source.bin")
    }

    /// Writes `bytes` of patterned data to `url`, 1 MiB at a time.
    static func writeSource(_ url: URL, bytes: Int) throws {
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) })
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw BenchmarkError("cannot create \(url.path)") }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var written = 0
        while written < bytes {
            let size = min(block.count, bytes - written)
            try handle.write(contentsOf: size == block.count ? block : block.prefix(size))
            written += size
        }
    }

    private static func destination(_ spec: ChildSpec) -> URL {
        spec.workdir.appendingPathComponent("download-\(spec.mode.rawValue)-\(ProcessInfo.processInfo.processIdentifier).bin")
    }

    private static func checkAndRemove(_ file: URL, _ spec: ChildSpec) throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? -1
        guard size == spec.bytes else {
            throw BenchmarkError("\(spec.scenario.rawValue) \(spec.mode.rawValue): file has \(size) of \(spec.bytes) bytes")
        }
    }

    /// Ours: the Transfers layer's `download(for:to:)`, streaming the body to a partial file and
    /// moving it into place.
    static func oursDownload(_ spec: ChildSpec) async throws {
        let file = destination(spec)
        let manager = SessionManager(transport: spec.transport)
        let (url, response) = try await manager.download(
            for: URLRequest(url: BenchServer.bytesURL(spec.server, spec.bytes)), to: .file(file)
        )
        await manager.invalidateAndCancel()
        guard response.statusCode == 200, url.standardizedFileURL == file.standardizedFileURL else {
            throw BenchmarkError("download: status \(response.statusCode), file \(url.path)")
        }
        try checkAndRemove(file, spec)
    }

    /// Baseline: `URLSession.download(for:)`, then a move to the destination.
    static func rawDownload(_ spec: ChildSpec) async throws {
        let session = URLSession(configuration: Configurations.tuned())
        defer { session.finishTasksAndInvalidate() }
        let (temporary, response) = try await session.download(for: URLRequest(url: BenchServer.bytesURL(spec.server, spec.bytes)))
        let file = destination(spec)
        try FileManager.default.moveItem(at: temporary, to: file)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw BenchmarkError("download: status \(status)") }
        try checkAndRemove(file, spec)
    }

    private static func uploadRequest(_ spec: ChildSpec) -> URLRequest {
        var request = URLRequest(url: BenchServer.uploadURL(spec.server))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        return request
    }

    /// Ours: `upload(for:fromFile:)`, the file read from disk as it is sent.
    static func oursUpload(_ spec: ChildSpec) async throws {
        let manager = SessionManager(transport: spec.transport)
        let (reply, response) = try await manager.upload(for: uploadRequest(spec), fromFile: uploadSource(in: spec.workdir))
        await manager.invalidateAndCancel()
        try checkUpload(status: response.statusCode, reply: reply, spec)
    }

    /// Baseline: `URLSession.upload(for:fromFile:)`.
    static func rawUpload(_ spec: ChildSpec) async throws {
        let session = URLSession(configuration: Configurations.tuned())
        defer { session.finishTasksAndInvalidate() }
        let (reply, response) = try await session.upload(for: uploadRequest(spec), fromFile: uploadSource(in: spec.workdir))
        try checkUpload(status: (response as? HTTPURLResponse)?.statusCode ?? 0, reply: reply, spec)
    }

    /// The status must be 200; when the server says how many bytes it got (LoopbackServer's
    /// `{"bytes": N}`), that must be the whole file.
    private static func checkUpload(status: Int, reply: Data, _ spec: ChildSpec) throws {
        guard status == 200 else { throw BenchmarkError("upload: status \(status)") }
        if let object = try? JSONSerialization.jsonObject(with: reply) as? [String: Any],
           let received = (object["bytes"] as? NSNumber)?.intValue, received != spec.bytes {
            throw BenchmarkError("upload: the server received \(received) of \(spec.bytes) bytes")
        }
    }
}
