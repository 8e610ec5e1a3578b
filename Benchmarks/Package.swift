// swift-tools-version:6.2
// The benchmarks of AsyncNetworking: a package of their own, never a dependency of the library or
// of anything the root package builds. From the repository root:
//
//     swift run -c release --package-path Benchmarks benchmarks [options]   (ours vs raw libcurl, URLSession)
//     swift run -c release --package-path Benchmarks peers [options]        (ours vs AsyncHTTPClient)
//     swift run -c release --package-path Benchmarks peers --websocket      (ours vs swift-websocket)
//
// The first build fetches AsyncHTTPClient, swift-websocket and SwiftNIO (on the project's own
// machines SwiftPM resolves them offline from its package cache); Package.resolved pins them, so
// every run measures the same versions.
import PackageDescription

let package = Package(
    name: "AsyncNetworkingBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "AsyncNetworking", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // The WebSocket benchmark (`peers --websocket`): Hummingbird's client and a SwiftNIO echo server.
        .package(url: "https://github.com/hummingbird-project/swift-websocket", exact: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // The raw-curl contender's libcurl, loaded with dlopen (no curl headers needed).
        .target(name: "CRawCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // What every benchmark shares: measurement, rotation, child processes, the report's pieces,
        // the command line, mixed-load's phases and the loopback server.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "LoopbackServer", package: "AsyncNetworking")]
        ),
        // AsyncNetworking against raw URLSession and a bare libcurl loop.
        .executableTarget(
            name: "benchmarks",
            dependencies: [
                "BenchmarkSupport", "CRawCurl",
                .product(name: "AsyncNetworking", package: "AsyncNetworking"),
                .product(name: "LoopbackServer", package: "AsyncNetworking"),
            ]
        ),
        // AsyncNetworking against AsyncHTTPClient, and (--websocket) against swift-websocket.
        .executableTarget(
            name: "peers",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "AsyncNetworking", package: "AsyncNetworking"),
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
