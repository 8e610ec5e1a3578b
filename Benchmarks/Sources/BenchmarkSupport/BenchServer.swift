import Foundation
import LoopbackServer

/// The HTTP server every scenario talks to: an embedded `LoopbackServer` on 127.0.0.1, or the
/// server given with `--server URL` (for example `Benchmarks/nginx/serve.sh`), which must answer
/// `GET /bytes/N` with N bytes (and accept `POST /upload` of any size for upload-1g).
package final class BenchServer: Sendable {
    package let baseURL: URL
    private let embedded: LoopbackServer?

    /// The body size of every small request.
    package static let smallBytes = 128

    package init(url: URL?) throws {
        if let url {
            baseURL = url
            embedded = nil
        } else {
            let server = try LoopbackServer()
            embedded = server
            baseURL = server.baseURL
        }
    }

    /// Where the server is, for the table header.
    package var description: String {
        embedded == nil ? "\(baseURL) (--server)" : "LoopbackServer at \(baseURL)"
    }

    /// `GET /bytes/N`.
    package var smallURL: URL { Self.bytesURL(baseURL, Self.smallBytes) }

    package static func bytesURL(_ base: URL, _ count: Int) -> URL {
        URL(string: base.absoluteString + "/bytes/\(count)")!
    }

    package static func uploadURL(_ base: URL) -> URL {
        URL(string: base.absoluteString + "/upload")!
    }

    package func stop() {
        embedded?.stop()
    }
}
