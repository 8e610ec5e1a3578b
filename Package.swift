// swift-tools-version:6.2
// 6.2 or later: the public error enums are `@nonexhaustive` (SE-0487, Swift 6.2.3).
import PackageDescription

let package = Package(
    name: "AsyncNetworking",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "AsyncNetworking", targets: ["AsyncNetworking"]),
        .library(name: "LoopbackServer", targets: ["LoopbackServer"]),
        .executable(name: "demo", targets: ["AsyncNetworkingDemo"]),
        .executable(name: "anfetch", targets: ["anfetch"]),
    ],
    targets: [
        // Non-variadic shims over libcurl, loaded with dlopen at run time (no curl headers needed).
        .target(name: "CCurlShim", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Small shared primitives (the TSan-visible lock, calendar and HTTP-date arithmetic), each
        // written once; `package` access only, so nothing here is public API.
        .target(name: "NetworkingPrimitives"),
        // What crosses the seam between the Session layer and a transport: attempt events, response
        // heads, the error type, TLS security values, proxy servers.
        .target(name: "TransportSeam", dependencies: ["NetworkingPrimitives"]),
        // libcurl's multi interface on a thread of its own (dlopen'd through CCurlShim): where curl
        // is driven. Knows requests, heads, bytes and TLS trust; nothing of sessions or transfers.
        .target(name: "CurlTransport", dependencies: ["CCurlShim", "TransportSeam", "NetworkingPrimitives"]),
        // URLSession (FoundationNetworking on Linux) under the seam: the delegate, its queue with
        // back-pressure, and the Apple trust evaluation.
        .target(name: "URLSessionTransport", dependencies: ["TransportSeam", "NetworkingPrimitives"]),
        // In-process answers for tests: the `HTTPStubs` registry and the stubs transport, which
        // reports the same attempt events as a network transport (below the core, like curl).
        .target(name: "AsyncNetworkingTesting", dependencies: ["TransportSeam", "NetworkingPrimitives"]),
        // The core: the session actor, the transfer state machine, transfers, batches, errors,
        // security values, reachability, cookies, WebSockets and the transports under the seam.
        .target(name: "AsyncNetworkingCore", dependencies: ["TransportSeam", "CurlTransport", "URLSessionTransport", "AsyncNetworkingTesting", "NetworkingPrimitives"]),
        // The HTTP layer over the core: client, serializers, pipeline, cache, streams.
        .target(name: "AsyncNetworkingHTTP", dependencies: ["AsyncNetworkingCore", "NetworkingPrimitives"]),
        // What users import: re-exports the layers above (and holds the DocC catalog).
        .target(name: "AsyncNetworking", dependencies: ["AsyncNetworkingCore", "AsyncNetworkingHTTP"]),
        .target(name: "LoopbackServer", dependencies: ["NetworkingPrimitives"]),
        .executableTarget(
            name: "AsyncNetworkingDemo",
            dependencies: ["AsyncNetworking", "LoopbackServer"]
        ),
        // anfetch: a download tool built only on the public API; the logic lives in AnfetchKit.
        .target(name: "AnfetchKit", dependencies: ["AsyncNetworking", "LoopbackServer", "NetworkingPrimitives"]),
        .executableTarget(name: "anfetch", dependencies: ["AnfetchKit"]),
        .testTarget(name: "AnfetchTests", dependencies: ["AnfetchKit", "AsyncNetworking", "LoopbackServer"]),
        // Test support shared by the test targets: loopback, TLS, proxy, WebSocket and python test
        // servers, the throwaway CA, and helpers. Not a product; built for `swift test`.
        .target(
            name: "AsyncNetworkingTestSupport",
            dependencies: [
                "AsyncNetworking", "AsyncNetworkingCore", "AsyncNetworkingHTTP", "TransportSeam", "CurlTransport",
                "URLSessionTransport", "AsyncNetworkingTesting", "LoopbackServer",
            ],
            path: "Tests/TestSupport"
        ),
        // One test target per module, files named by subject.
        .testTarget(name: "TransportSeamTests", dependencies: ["AsyncNetworkingTestSupport"]),
        .testTarget(name: "CurlTransportTests", dependencies: ["AsyncNetworkingTestSupport"]),
        .testTarget(name: "URLSessionTransportTests", dependencies: ["AsyncNetworkingTestSupport"]),
        .testTarget(name: "AsyncNetworkingTestingTests", dependencies: ["AsyncNetworkingTestSupport"]),
        .testTarget(name: "AsyncNetworkingCoreTests", dependencies: ["AsyncNetworkingTestSupport"]),
        .testTarget(name: "AsyncNetworkingHTTPTests", dependencies: ["AsyncNetworkingTestSupport"]),
        // The umbrella as users import it: the README's and the guides' examples.
        .testTarget(name: "AsyncNetworkingTests", dependencies: ["AsyncNetworking", "AsyncNetworkingTestSupport"]),
        .testTarget(name: "NetworkingPrimitivesTests", dependencies: ["NetworkingPrimitives"]),
        .testTarget(
            name: "LoopbackServerTests",
            dependencies: ["LoopbackServer"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
