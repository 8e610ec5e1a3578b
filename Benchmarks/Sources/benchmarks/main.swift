import BenchmarkSupport

// AsyncNetworking benchmarks: AsyncNetworking on its curl and URLSession transports against raw
// URLSession and a bare libcurl loop, alternately in one run, several rounds, medians and ratios.
// See Benchmarks.md in the DocC catalog. From the repository root:
//
//   swift run -c release --package-path Benchmarks benchmarks [--rounds N] [--big-rounds N] [--quick] [--only a,b] [--json FILE] [--server URL]
//   swift run -c release --package-path Benchmarks benchmarks tls [--rounds N] [--quick]

await runBenchmark("benchmarks", usage: Options.usage, parse: Options.parse, run: Benchmarks.main)
