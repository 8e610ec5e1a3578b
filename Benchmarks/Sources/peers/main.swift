import BenchmarkSupport

// AsyncNetworking against AsyncHTTPClient 1.37.0: the HTTP scenarios of `benchmarks`, each client
// in a child process of its own, alternating round after round. From the repository root:
//
//   swift run -c release --package-path Benchmarks peers [--rounds N] [--quick] [--only a,b] [--clients a,b] [--json FILE] [--server URL]
//
// and the WebSocket benchmark (echo round trips and 1 MiB messages against a SwiftNIO echo server,
// beside swift-websocket's client):
//
//   swift run -c release --package-path Benchmarks peers --websocket [--rounds N] [--quick] [--only ws-echo,ws-1mib]

await runBenchmark("peers", usage: Options.usage, parse: Options.parse, run: Peers.main)
