@testable import AsyncNetworkingTestSupport

/// The manager's default download destination.
@Suite("Manager: default download destination")
struct ManagerDownloadTests {
    @Test func aDownloadThatNamesNoDestinationGoesToTheManagersDefault() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                await manager.setDefaultDownloadDestination(.directory(directory))
                let (url, response) = try await manager.download(for: URLRequest(url: server.url("/bytes/3000?seed=3")))
                #expect(response.statusCode == 200)
                #expect(url.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
                #expect(try TransfersSupport.checksum(ofFile: url) == TransfersSupport.checksum(seed: 3, count: 3000))

                let handle = try await manager.downloadTask(with: URLRequest(url: server.url("/bytes/500?seed=4")))
                let events = try await collectEvents(handle)
                let file = try #require(events.compactMap { event -> URL? in
                    if case .downloaded(let url) = event { return url }
                    return nil
                }.first)
                #expect(file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
                #expect(try TransfersSupport.checksum(ofFile: file) == TransfersSupport.checksum(seed: 4, count: 500))
            }
        }
    }

    @Test func withoutASetDefaultEachDownloadGetsANewTemporaryFile() async throws {
        try await withServerAndManager { server, manager in
            let request = URLRequest(url: server.url("/bytes/100?seed=9"))
            let (first, _) = try await manager.download(for: request)
            let (second, _) = try await manager.download(for: request)
            defer {
                try? FileManager.default.removeItem(at: first)
                try? FileManager.default.removeItem(at: second)
            }
            #expect(first != second, "never the same file")
            #expect(first.deletingLastPathComponent().standardizedFileURL.path
                    == FileManager.default.temporaryDirectory.standardizedFileURL.path)
            #expect(first.lastPathComponent.hasPrefix("AsyncNetworking-"))
            #expect(try TransfersSupport.checksum(ofFile: second) == TransfersSupport.checksum(seed: 9, count: 100))
            // Reset to the default after a change.
            await manager.setDefaultDownloadDestination(.directory(URL(fileURLWithPath: "/nonexistent")))
            await manager.setDefaultDownloadDestination(nil)
            let (third, _) = try await manager.download(for: request)
            try? FileManager.default.removeItem(at: third)
            #expect(third.lastPathComponent.hasPrefix("AsyncNetworking-"))
        }
    }
}
