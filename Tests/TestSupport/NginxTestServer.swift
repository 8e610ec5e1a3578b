import Foundation
#if canImport(Glibc)
import Glibc
import AsyncNetworking
#endif

/// An nginx on 127.0.0.1 offering HTTP/2 over TLS (ALPN `h2`), started in the foreground with a
/// config of its own in a temporary directory, presenting the ``TestPKI`` leaf `good` (trust
/// `ca.pem`). Serves `files` from its root, and from `/slow/` at 128 KiB/s per request; `/post`
/// takes any method and body and answers `200 posted`. Needs `nginx` on the `PATH` (see ``isAvailable``).
final class NginxTestServer: Sendable {
    let port: Int
    let directory: URL
    private let child: Subprocess.Child

    /// The `nginx` executable on the `PATH`, if any.
    static let executable = Subprocess.executable("nginx", fallbackPath: "/usr/sbin:/usr/bin:/sbin:/bin")

    /// Whether nginx, openssl and python3 (the PKI) are present.
    static var isAvailable: Bool { executable != nil && TestPKI.isAvailable }

    /// Starts nginx serving `files` (name → contents); returns once it accepts connections.
    /// Starts nginx on a thread of its own (it waits for nginx to listen).
    /// `maxConcurrentStreams`: nginx's `http2_max_concurrent_streams` (its default 128), the
    /// limit it announces in SETTINGS.
    static func started(pki: TestPKI, files: [String: Data], maxConcurrentStreams: Int? = nil) async throws -> NginxTestServer {
        try await offThePool { try NginxTestServer(pki: pki, files: files, maxConcurrentStreams: maxConcurrentStreams) }
    }

    init(pki: TestPKI, files: [String: Data], maxConcurrentStreams: Int? = nil) throws {
        guard let executable = Self.executable else { throw TLSTestError("nginx is not installed") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("an-nginx-\(UUID().uuidString)")
        let root = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (name, contents) in files { try contents.write(to: root.appendingPathComponent(name)) }
        var lastError = "no attempt"
        for _ in 0..<5 {
            let port = try unusedLoopbackPort()
            let config = """
            worker_processes 1;
            daemon off;
            master_process off;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log;
            events { worker_connections 4096; }
            http {
              access_log off;
              types { application/octet-stream bin; }
              client_body_temp_path \(directory.path)/body;
              proxy_temp_path \(directory.path)/proxy;
              fastcgi_temp_path \(directory.path)/fastcgi;
              uwsgi_temp_path \(directory.path)/uwsgi;
              scgi_temp_path \(directory.path)/scgi;
              server {
                listen 127.0.0.1:\(port) ssl http2;
                \(maxConcurrentStreams.map { "http2_max_concurrent_streams \($0);" } ?? "")
                ssl_certificate \(pki.file("good-chain.pem").path);
                ssl_certificate_key \(pki.file("good.key").path);
                root \(root.path);
                # /slow/NAME: the same files at 128 KiB/s per request (parallel streams stay open).
                location /slow/ { alias \(root.path)/; limit_rate 128k; }
                # /post: any method; the body is read and dropped, the answer is `posted`.
                location = /post { client_max_body_size 16m; return 200 "posted\\n"; }
              }
            }
            """
            let configFile = directory.appendingPathComponent("nginx.conf")
            try Data(config.utf8).write(to: configFile)
            let child = try Subprocess.start(
                executable, ["-c", configFile.path, "-p", directory.path + "/", "-e", directory.appendingPathComponent("error.log").path]
            )
            if waitUntilListening(port, child: child, within: 20) {
                self.port = port
                self.child = child
                return
            }
            child.terminate()
            lastError = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "nginx exited"
        }
        try? FileManager.default.removeItem(at: directory)
        throw TLSTestError("nginx did not start: \(lastError)")
    }

    /// `https://127.0.0.1:port/name`.
    func url(_ name: String) -> URL { URL(string: "https://127.0.0.1:\(port)/\(name)")! }

    /// Stops nginx and removes its directory.
    func stop() {
        child.terminate(SIGTERM)
        try? FileManager.default.removeItem(at: directory)
    }
}
