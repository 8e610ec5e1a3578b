import BenchmarkSupport
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Session configurations compared by the request scenarios.
enum Configurations {
    /// One of the settings `SessionManager.defaultConfiguration()` turns off.
    enum Setting: String, CaseIterable, Sendable {
        case urlCache = "urlcache_off"
        case cookies = "cookies_off"
        case credentialStorage = "credential_storage_off"

        var label: String {
            switch self {
            case .urlCache: return ".default, urlCache off"
            case .cookies: return ".default, cookies off"
            case .credentialStorage: return ".default, credential storage off"
            }
        }
    }

    /// What AsyncNetworking uses, and so what the main raw baselines use.
    static func tuned() -> URLSessionConfiguration {
        SessionManager.defaultConfiguration()
    }

    /// `URLSessionConfiguration.default` with one setting turned off exactly as
    /// `SessionManager.defaultConfiguration()` does it.
    static func defaultWithout(_ setting: Setting) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        switch setting {
        case .urlCache:
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        case .cookies:
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
        case .credentialStorage:
            configuration.urlCredentialStorage = nil
        }
        return configuration
    }
}

/// A client that loads small bodies: AsyncNetworking, or one of the raw URLSession styles.
enum SmallClient: Sendable {
    /// `SessionManager.data(for:)`.
    case ours(SessionManager)
    /// `URLSession.data(for:)`: async, built on a completion handler.
    case rawAsync(URLSession)
    /// A raw session delegate that collects the body (see ``RawDelegateClient``).
    case rawDelegate(RawDelegateClient)

    /// Loads `request` and checks it is a 200 with `expectedBytes` of body.
    func get(_ request: URLRequest, expectedBytes: Int) async throws {
        let body: Data
        let status: Int
        switch self {
        case .ours(let manager):
            let (data, response) = try await manager.data(for: request)
            (body, status) = (data, response.statusCode)
        case .rawAsync(let session):
            let (data, response) = try await session.data(for: request)
            (body, status) = (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
        case .rawDelegate(let client):
            let (data, response) = try await client.data(for: request)
            (body, status) = (data, response.statusCode)
        }
        guard status == 200, body.count == expectedBytes else {
            throw BenchmarkError("\(request.url?.absoluteString ?? "?"): status \(status), \(body.count) bytes")
        }
    }

    func shutdown() async {
        switch self {
        case .ours(let manager): await manager.invalidateAndCancel()
        case .rawAsync(let session): session.invalidateAndCancel()
        case .rawDelegate(let client): client.invalidate()
        }
    }
}

extension SessionManager {
    /// Loads `request` `count` times, `width` at once, from code isolated to the manager: each
    /// `data(for:)` starts without the caller → actor hop (and resumes on the manager's queue).
    /// A diagnostic contender (`--variants ours-isolated`) that shows what the hop costs.
    func loadIsolated(_ request: URLRequest, count: Int, width: Int, expectedBytes: Int) async throws {
        func loop(_ manager: isolated SessionManager, _ times: Int) async throws {
            for _ in 0..<times {
                let (body, response) = try await manager.data(for: request)
                guard response.statusCode == 200, body.count == expectedBytes else {
                    throw BenchmarkError("status \(response.statusCode), \(body.count) bytes")
                }
            }
        }
        guard width > 1 else { return try await loop(self, count) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<width {
                let times = count / width + (lane < count % width ? 1 : 0)
                group.addTask { try await loop(self, times) }
            }
            try await group.waitForAll()
        }
    }
}
