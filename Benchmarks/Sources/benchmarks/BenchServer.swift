import Foundation
import LoopbackServer

/// The server every scenario talks to: an embedded `LoopbackServer` on 127.0.0.1, or the server
/// given with `--server URL` (for example nginx), which must answer `GET /bytes/N` with N bytes and
/// accept `POST /upload` of any size.
final class BenchServer: Sendable {
    let baseURL: URL
    private let embedded: LoopbackServer?

    /// The body size of every small request.
    static let smallBytes = 128

    init(url: URL?) throws {
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
    var description: String {
        embedded == nil ? "\(baseURL) (--server)" : "LoopbackServer at \(baseURL)"
    }

    /// `GET /bytes/N`.
    var smallURL: URL { Self.bytesURL(baseURL, Self.smallBytes) }

    static func bytesURL(_ base: URL, _ count: Int) -> URL {
        URL(string: base.absoluteString + "/bytes/\(count)")!
    }

    static func uploadURL(_ base: URL) -> URL {
        URL(string: base.absoluteString + "/upload")!
    }

    func stop() {
        embedded?.stop()
    }
}
