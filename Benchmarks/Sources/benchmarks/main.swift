import Foundation

// AsyncNetworking benchmarks: AsyncNetworking on its curl and URLSession transports against raw
// URLSession and a bare libcurl loop, alternately in one run, several rounds, medians and ratios.
// See the README's Benchmarks section.
//
//   swift run -c release benchmarks [--rounds N] [--big-rounds N] [--quick] [--only a,b] [--json FILE] [--server URL]
//   swift run -c release benchmarks tls [--rounds N] [--quick]

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    guard let message = error.message else {
        print(Options.usage)
        exit(0)
    }
    log("benchmarks: \(message)\n\(Options.usage)")
    exit(2)
}
exit(await Benchmarks.main(options))
