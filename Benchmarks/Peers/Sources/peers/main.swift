import Foundation

// AsyncNetworking against AsyncHTTPClient 1.37.0: the root benchmark's scenarios, each client in a
// child process of its own, alternating round after round. From the repository root:
//
//   swift run -c release --package-path Benchmarks/Peers [--rounds N] [--quick] [--only a,b] [--json FILE] [--server URL]
//
// and the WebSocket benchmark (echo round trips and 1 MiB messages against a SwiftNIO echo server,
// beside swift-websocket's client):
//
//   swift run -c release --package-path Benchmarks/Peers --websocket [--rounds N] [--quick] [--only ws-echo,ws-1mib]

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    guard let message = error.message else {
        print(Options.usage)
        exit(0)
    }
    log("peers: \(message)\n\(Options.usage)")
    exit(2)
}
exit(await Peers.main(options))
