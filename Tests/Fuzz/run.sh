#!/usr/bin/env bash
# Builds and runs one libFuzzer target of Tests/Fuzz (or all of them), instrumented with
# libFuzzer's coverage and AddressSanitizer. See Tests/Fuzz/README.md.
#
#   Tests/Fuzz/run.sh TARGET [SECONDS | -runs=N] [more libFuzzer flags]   run one target
#   Tests/Fuzz/run.sh all [SECONDS | -runs=N]                             run every target in turn
#   Tests/Fuzz/run.sh --list                                              the targets
#   Tests/Fuzz/run.sh --build TARGET|all                                  build only
#
# The default is 30 seconds; inputs are up to 4 KiB (longer seeds are cut). A crash, a sanitizer
# report, a timeout (25 s on one input) or an out-of-memory (2 GiB) fails the run: the input is written to .build-fuzz/artifacts/TARGET/ and
# the script exits non-zero. New inputs found go to .build-fuzz/corpus/TARGET (the seed corpus in
# Tests/Fuzz/Corpus/TARGET is only read).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
fuzz="Tests/Fuzz"
scratch=".build-fuzz"
release="$scratch/release"
targets=$(cd "$fuzz/Targets" && ls *.swift | sed 's/\.swift$//')

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

# The toolchain must have libFuzzer and ASan for Swift: fail loudly, never skip.
check_runtime() {
    local probe="$scratch/probe"
    mkdir -p "$probe"
    if [[ ! -x "$probe/probe" ]]; then
        printf '@_cdecl("LLVMFuzzerTestOneInput") public func f(_ d: UnsafePointer<UInt8>?, _ n: Int) -> CInt { 0 }\n' > "$probe/probe.swift"
        if ! swiftc -sanitize=fuzzer,address -parse-as-library "$probe/probe.swift" -o "$probe/probe" >"$probe/log" 2>&1; then
            cat "$probe/log" >&2
            echo "error: this Swift toolchain cannot build libFuzzer targets (swiftc -sanitize=fuzzer,address failed)" >&2
            exit 1
        fi
    fi
}

# The library's modules, built once (and incrementally after) with coverage and ASan, in release
# mode with -enable-testing so an entry file can @testable import their internals.
# The environment is fixed: llbuild keeps each command's environment in its signature, so a
# variable that differs between two runs (ASAN_OPTIONS, a CI variable) would rebuild everything.
build_modules() {
    local flags=(-c release --scratch-path "$scratch" --sanitize=address --sanitize=fuzzer -Xswiftc -enable-testing)
    for module in AsyncNetworkingHTTP LoopbackServer; do
        if ! env -i PATH="$PATH" HOME="${HOME:-/root}" swift build "${flags[@]}" --target "$module" >"$scratch/build-$module.log" 2>&1; then
            grep -E "error|warning: " "$scratch/build-$module.log" >&2 || tail -20 "$scratch/build-$module.log" >&2
            echo "error: building $module for fuzzing failed (log: $scratch/build-$module.log)" >&2
            exit 1
        fi
    done
}

# One target: its entry file and the shared Support/*.swift, linked with every module's objects.
build_target() {
    local name="$1" entry="$fuzz/Targets/$1.swift" binary="$scratch/targets/$1"
    [[ -f "$entry" ]] || { echo "error: no fuzz target '$name' (see --list)" >&2; exit 2; }
    local support=("$fuzz/Support/"*.swift)
    mkdir -p "$scratch/targets"
    local objects=()
    for module in NetworkingPrimitives TransportSeam CCurlShim CurlTransport URLSessionTransport AsyncNetworkingTesting \
                  AsyncNetworkingCore AsyncNetworkingHTTP LoopbackServer; do
        objects+=("$release/$module.build/"*.o)
    done
    if [[ -x "$binary" && "$binary" -nt "$entry" ]] && ! find "${support[@]}" "${objects[@]}" -newer "$binary" | grep -q .; then
        return 0
    fi
    if ! swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name "FuzzTarget" \
        -I "$release/Modules" -Xcc -fmodule-map-file="$release/CCurlShim.build/module.modulemap" \
        -Xcc -I -Xcc "Sources/CCurlShim/include" \
        "$entry" "${support[@]}" "${objects[@]}" -ldl -o "$binary.new" >"$scratch/targets/$name.log" 2>&1; then
        grep -v "ld.gold: warning: Cannot export local symbol" "$scratch/targets/$name.log" >&2
        echo "error: building the fuzz target $name failed" >&2
        exit 1
    fi
    mv -f "$binary.new" "$binary" # a rename: a run of the old binary goes on undisturbed
}

run_target() {
    local name="$1" budget="$2"; shift 2
    local corpus="$scratch/corpus/$name" artifacts="$scratch/artifacts/$name"
    mkdir -p "$corpus" "$artifacts"
    local limit=()
    if [[ "$budget" == -runs=* ]]; then limit=("$budget"); else limit=(-max_total_time="$budget"); fi
    echo "== $name (${budget})"
    # detect_leaks=0: the Swift runtime's metadata and Foundation's caches live for the process and
    # LeakSanitizer reports them; every other ASan check is on. Allocation stacks of 5 frames:
    # recording 30 costs a third of each run.
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:malloc_context_size=5}" \
        "$scratch/targets/$name" -artifact_prefix="$artifacts/" -timeout=25 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        "${limit[@]}" "$@" "$corpus" "$fuzz/Corpus/$name"
}

[[ $# -ge 1 ]] || usage
mkdir -p "$scratch"
case "$1" in
--list) echo "$targets"; exit 0 ;;
--build)
    [[ $# -eq 2 ]] || usage
    check_runtime
    build_modules
    if [[ "$2" == all ]]; then for t in $targets; do build_target "$t"; done; else build_target "$2"; fi
    exit 0 ;;
-h|--help) usage ;;
esac
name="$1"; budget="${2:-30}"; shift; [[ $# -ge 1 ]] && shift
check_runtime
build_modules
if [[ "$name" == all ]]; then
    for t in $targets; do build_target "$t"; done
    for t in $targets; do run_target "$t" "$budget" "$@"; done
else
    build_target "$name"
    run_target "$name" "$budget" "$@"
fi
