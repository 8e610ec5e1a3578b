@testable import AsyncNetworkingTestSupport

/// Leak and soak checks (not run by default — they take a while):
/// `ASYNCNETWORKING_SOAK=1 swift test --filter Soak`.
@Suite(
    "Soak: leaks and resource use", .tags(.soak), .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["ASYNCNETWORKING_SOAK"] == "1")
)
struct SoakTests {
    static var requests: Int { Int(ProcessInfo.processInfo.environment["ASYNCNETWORKING_SOAK_REQUESTS"] ?? "") ?? 20_000 }

    /// Resident set size now, from /proc/self/statm (pages × page size).
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    static func ourTemporaryFiles() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? []
        return names.filter { $0.hasPrefix("AsyncNetworking") }.count
    }

    @Test func twentyThousandRequestsLeaveNothingBehindAndGrowLikeRawURLSession() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let count = Self.requests
        let url = server.url("/bytes/512?seed=1")

        // Warm both paths up so one-time allocations do not count as growth.
        let raw = URLSession(configuration: SessionManager.defaultConfiguration())
        let manager = SessionManager()
        for _ in 0..<500 {
            _ = try await raw.data(from: url)
            _ = try await manager.data(from: url)
        }
        let descriptorsBefore = Self.openDescriptors()
        let temporaryBefore = Self.ourTemporaryFiles()

        let rawStart = Self.residentBytes()
        for _ in 0..<count { _ = try await raw.data(from: url) }
        let rawGrowth = Self.residentBytes() - rawStart

        let oursStart = Self.residentBytes()
        for i in 0..<count {
            if i.isMultiple(of: 10) {
                // Every tenth goes through the event stream, to soak that path too.
                let handle = try await manager.dataTask(with: URLRequest(url: url))
                for try await _ in handle.events {}
            } else {
                _ = try await manager.data(from: url)
            }
        }
        let oursGrowth = Self.residentBytes() - oursStart

        print("soak: \(count) requests — RSS growth raw \(rawGrowth / 1024) KiB, ours \(oursGrowth / 1024) KiB")
        #expect(await manager.activeTransferCount == 0)
        #expect(Self.ourTemporaryFiles() == temporaryBefore)
        #expect(Self.openDescriptors() <= descriptorsBefore + 2, "descriptors: before \(descriptorsBefore), after \(Self.openDescriptors())")
        // FoundationNetworking itself grows ~200 B per request; allow ours 1.5× raw plus 2 MiB of allocator noise.
        #expect(oursGrowth <= max(rawGrowth, 0) * 3 / 2 + (2 << 20))
        await manager.invalidateAndCancel()
        raw.invalidateAndCancel()
    }
}
