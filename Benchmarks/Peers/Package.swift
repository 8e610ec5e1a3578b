// swift-tools-version:6.0
// AsyncNetworking against AsyncHTTPClient: a separate package, never a dependency of the library
// or of anything the root package builds. Run from the repository root:
//
//     swift run -c release --package-path Benchmarks/Peers
//
// It needs network access to fetch AsyncHTTPClient and SwiftNIO the first time (on the project's
// own machines SwiftPM resolves them offline from a local package copy).
import PackageDescription

let package = Package(
    name: "AsyncNetworkingPeers",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "AsyncNetworking", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // The WebSocket benchmark (`peers --websocket`): Hummingbird's client and a SwiftNIO echo server.
        .package(url: "https://github.com/hummingbird-project/swift-websocket", exact: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "peers",
            dependencies: [
                .product(name: "AsyncNetworking", package: "AsyncNetworking"),
                .product(name: "LoopbackServer", package: "AsyncNetworking"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
