@testable import AsyncNetworkingTestSupport

/// What happens to `Set-Cookie` on each transport, pinned so the Transports
/// and LinuxBehaviour articles stay true: curl keeps no cookies at all; URLSession stores and sends
/// them only when the configuration has a cookie storage — ``SessionManager/defaultConfiguration()``
/// has none, so enabling cookies on it alone stores nothing.
@Suite("Cookies per transport")
struct CookieBehaviourTests {
    /// Requests a `Set-Cookie` and then a second URL on the same server with a manager made from
    /// `configuration`; returns the `Cookie` field the server saw on the second request.
    private func cookieSentBack(_ configuration: URLSessionConfiguration, name: String) async throws -> (String?, SessionManager.Transport) {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager(configuration: configuration)
        do {
            let result = try await withDeadline {
                let setURL = server.url("/response-headers?Set-Cookie=\(name)%3Dabc%3B%20Path%3D%2F")
                let (_, first) = try await manager.data(from: setURL)
                #expect(first.value(forHTTPHeaderField: "Set-Cookie") == "\(name)=abc; Path=/", "the response carries the cookie")
                _ = try await manager.data(from: server.url("/echo"))
                let echo = try #require(server.requests.last { $0.path == "/echo" })
                return (echo.header("Cookie"), manager.transport)
            }
            await manager.invalidateAndCancel()
            return result
        } catch {
            await manager.invalidateAndCancel()
            throw error
        }
    }

    @Test("the default configuration with cookies switched on still stores none, on either transport")
    func defaultConfigurationStoresNoCookies() async throws {
        let configuration = SessionManager.defaultConfiguration()
        configuration.httpShouldSetCookies = true
        configuration.httpCookieAcceptPolicy = .always
        #expect(configuration.httpCookieStorage == nil)
        let (sent, _) = try await cookieSentBack(configuration, name: "c\(UUID().uuidString.prefix(8))")
        #expect(sent == nil, "no storage: nothing kept, nothing sent back")
    }

    @Test("with a cookie storage, URLSession sends the cookie back and curl does not")
    func cookieStoragePerTransport() async throws {
        let name = "c\(UUID().uuidString.prefix(8))"
        let storage = HTTPCookieStorage.shared
        defer { for cookie in storage.cookies ?? [] where cookie.name == name { storage.deleteCookie(cookie) } }
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = storage
        configuration.httpShouldSetCookies = true
        configuration.httpCookieAcceptPolicy = .always
        let (sent, transport) = try await cookieSentBack(configuration, name: name)
        if transport == .curl {
            #expect(sent == nil, "curl has no cookie store: Set-Cookie is never kept")
            #expect(storage.cookies?.contains { $0.name == name } != true)
        } else {
            #expect(sent == "\(name)=abc", "URLSession stored the cookie and sent it back")
        }
    }
}
