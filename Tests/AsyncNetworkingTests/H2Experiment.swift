import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AsyncNetworking

/// Measurements behind Transports.md's *HTTP/2 on curl* (not tests: they assert nothing and are
/// skipped unless `AN_H2_EXP=1`). `AN_H2_MODE` picks one: `held` (AN_H2_HELD streams of AN_H2_MB
/// MiB left unread while one is read; AN_H2_WAIT seconds before reading), `starve` (two held
/// streams at two connections per host, then a small GET), `conns` (AN_H2_N parallel slow GETs,
/// stream limit AN_H2_K, AN_H2_NOWAIT=1 without PIPEWAIT), `speedlocal` (one 256 MiB stream;
/// AN_H2_CURLCLI=1 adds the curl tool). AN_H2_FORCE=1 selects `pausableTransfers: .http2`.
/// Example: `AN_H2_EXP=1 AN_H2_MODE=held AN_H2_HELD=30 swift test --filter H2Experiment`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AN_H2_EXP"] != nil, "experiment"), .serialized)
struct H2Experiment {
    static let env = ProcessInfo.processInfo.environment
    static func rss() -> Int { SoakTests.residentBytes() }
    static var policy: HTTP2Options.PausableTransfers { env["AN_H2_FORCE"] != nil ? .http2 : .http1_1 }

    static func completions(_ activity: TransferActivityStream, count: Int) async -> [ConnectionMetrics?] {
        var result: [ConnectionMetrics?] = []
        for await event in activity {
            if case .completed(let c) = event { result.append(c.metrics?.connection); if result.count == count { break } }
        }
        return result
    }

    @Test func heldStreams() async throws {
        guard Self.env["AN_H2_MODE"] == "held" else { return }
        let held = Int(Self.env["AN_H2_HELD"] ?? "7") ?? 7
        let size = Int(Self.env["AN_H2_MB"] ?? "64")! << 20
        let big = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 1) })
        let pki = try await TestPKI.make()
        let server = try await NginxTestServer.started(pki: pki, files: ["big.bin": big])
        defer { server.stop() }
        let configuration = SessionManager.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 200
        let manager = SessionManager(configuration: configuration, transport: .curl, securityPolicy: .customRoots([try pki.certificate("ca.pem")]), http2: HTTP2Options(pausableTransfers: Self.policy))
        let before = Self.rss()
        var handles: [TransferHandle] = []
        for _ in 0..<(held + 1) { handles.append(try await manager.dataTask(with: URLRequest(url: server.url("big.bin")))) }
        try await Task.sleep(for: .seconds(Double(Self.env["AN_H2_WAIT"] ?? "3")!))
        let afterHold = Self.rss()
        let start = ContinuousClock.now
        let first = handles[0]
        let reader = Task {
            var n = 0; var version: String?; var conn: String?
            for try await event in first.events {
                switch event {
                case .data(let c): n += c.count
                case .completed(let m): version = m.connection?.httpVersion; conn = m.connection?.connectionIdentifier
                default: break
                }
            }
            return (n, version, conn)
        }
        let result = try await reader.value
        let elapsed = ContinuousClock.now - start
        print("EXP held=\(held) policy=\(Self.policy) size=\(size >> 20)MiB read=\(result.0) version=\(String(describing: result.1)) elapsed=\(elapsed) rssBefore=\(before >> 20)MiB afterHold=\(afterHold >> 20)MiB end=\(Self.rss() >> 20)MiB")
        for h in handles { h.cancel() }
        await manager.invalidateAndCancel()
    }

    @Test func starve() async throws {
        guard Self.env["AN_H2_MODE"] == "starve" else { return }
        let big = Data(repeating: 7, count: 32 << 20)
        let pki = try await TestPKI.make()
        let server = try await NginxTestServer.started(pki: pki, files: ["big.bin": big, "small.bin": Data("hello".utf8)])
        defer { server.stop() }
        let configuration = SessionManager.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 2
        let manager = SessionManager(configuration: configuration, transport: .curl, securityPolicy: .customRoots([try pki.certificate("ca.pem")]), http2: HTTP2Options(pausableTransfers: Self.policy))
        var handles: [TransferHandle] = []
        for _ in 0..<2 { handles.append(try await manager.dataTask(with: URLRequest(url: server.url("big.bin")))) }
        try await Task.sleep(for: .seconds(2))
        let start = ContinuousClock.now
        let outcome = await withTaskGroup(of: String.self) { group in
            group.addTask { do { let (d, _) = try await manager.data(from: server.url("small.bin")); return "ok \(d.count)" } catch { return "error \(error)" } }
            group.addTask { try? await Task.sleep(for: .seconds(15)); return "TIMEOUT 15s" }
            let r = await group.next()!
            group.cancelAll()
            return r
        }
        print("EXP starve policy=\(Self.policy) maxHost=2 held=2 -> small GET: \(outcome) after \(ContinuousClock.now - start)")
        for h in handles { h.cancel() }
        await manager.invalidateAndCancel()
    }

    @Test func connections() async throws {
        guard Self.env["AN_H2_MODE"] == "conns" else { return }
        let n = Int(Self.env["AN_H2_N"] ?? "8")!
        let k = Int(Self.env["AN_H2_K"] ?? "100")!
        let wait = Self.env["AN_H2_NOWAIT"] == nil
        let pki = try await TestPKI.make()
        let server = try await NginxTestServer.started(pki: pki, files: ["f.bin": Data(repeating: 1, count: 256 << 10)])
        defer { server.stop() }
        let configuration = SessionManager.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = 200
        let manager = SessionManager(configuration: configuration, transport: .curl, securityPolicy: .customRoots([try pki.certificate("ca.pem")]), http2: HTTP2Options(maximumConcurrentStreams: k, waitsForMultiplexing: wait))
        let activity = await manager.transferActivity()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<n { group.addTask { _ = try? await manager.data(from: server.url("slow/f.bin")) } }
        }
        let metrics = await Self.completions(activity, count: n)
        var counts: [String: Int] = [:]
        for m in metrics { counts[m?.connectionIdentifier ?? "nil", default: 0] += 1 }
        print("EXP conns n=\(n) k=\(k) wait=\(wait) versions=\(Set(metrics.map { $0?.httpVersion ?? "nil" })) connections=\(counts.count) perConnection=\(counts.values.sorted())")
        await manager.invalidateAndCancel()
    }

    @Test func speedLocal() async throws {
        guard Self.env["AN_H2_MODE"] == "speedlocal" else { return }
        let pki = try await TestPKI.make()
        let server = try await NginxTestServer.started(pki: pki, files: ["big.bin": Data(repeating: 0x42, count: 256 << 20)])
        defer { server.stop() }
        print("EXP nginx port \(server.port) dir \(server.directory.path)")
        for policy in [HTTP2Options.PausableTransfers.http1_1, .http2] {
            let manager = SessionManager(transport: .curl, securityPolicy: .customRoots([try pki.certificate("ca.pem")]), http2: HTTP2Options(pausableTransfers: policy))
            for round in 0..<3 {
                let start = ContinuousClock.now
                var n = 0; var version: String?
                for try await event in try await manager.dataTask(with: URLRequest(url: server.url("big.bin"))).events {
                    switch event {
                    case .data(let c): n += c.count
                    case .completed(let m): version = m.connection?.httpVersion
                    default: break
                    }
                }
                let s = (ContinuousClock.now - start) / .seconds(1)
                print("EXP speed events policy=\(policy) round=\(round) \(version ?? "?") \(n >> 20) MiB in \(s) s = \(Double(n) / 1048576 / s) MiB/s")
            }
            if policy == .http1_1 {
                for round in 0..<3 {
                    let start = ContinuousClock.now
                    let (d, _) = try await manager.data(from: server.url("big.bin"))
                    let s = (ContinuousClock.now - start) / .seconds(1)
                    print("EXP speed collected (HTTP/2) round=\(round) \(d.count >> 20) MiB in \(s) s = \(Double(d.count) / 1048576 / s) MiB/s")
                }
            }
            await manager.invalidateAndCancel()
        }
        if Self.env["AN_H2_CURLCLI"] != nil {
            for flag in ["--http1.1", "--http2"] {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                p.arguments = ["-s", flag, "--cacert", pki.file("ca.pem").path, "-o", "/dev/null", "-w", "%{http_version} %{speed_download}\n", server.url("big.bin").absoluteString]
                let pipe = Pipe(); p.standardOutput = pipe
                try p.run(); p.waitUntilExit()
                print("EXP curl CLI \(flag): \(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
            }
        }
    }
}
