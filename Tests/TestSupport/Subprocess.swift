import Foundation
#if canImport(Glibc)
import Glibc
import AsyncNetworking
#endif

/// glibc ≥ 2.34 functions the Glibc module does not expose (GNU extensions), found with `dlsym`.
private enum LibcExtensions {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let address = dlsym(nil, name) else { fatalError("no \(name) in libc") }
        return unsafeBitCast(address, to: type)
    }
    static func pipe2(_ ends: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32 { symbol("pipe2", as: Pipe2.self)(ends, flags) }
    static func addchdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: UnsafePointer<CChar>) -> Int32 {
        symbol("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)(actions, path)
    }
    static func addclosefrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32 {
        symbol("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)(actions, from)
    }
}

/// Child processes for tests, started with `posix_spawn` directly.
///
/// Not `Foundation.Process`: on Linux its `run()` crashes (a `memcpy` past a mapping) when the
/// process holds descriptors numbered above ~1,024 — which a parallel run of this suite does
/// (2,400–2,600 at its peak). The child gets only stdin (`/dev/null`), stdout and stderr as
/// asked: every descriptor from 3 up is closed in it, so no pipe or socket of another test leaks
/// into a long-lived child.
enum Subprocess {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// The executable `name` in a directory of the `PATH` (`fallbackPath` when it is unset) or
    /// then of `extraDirectories`, or `nil`.
    static func executable(
        _ name: String, fallbackPath: String = "/usr/bin:/bin", extraDirectories: [String] = []
    ) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? fallbackPath).split(separator: ":").map(String.init)
        return (directories + extraDirectories).map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A started child: its pid, to signal and reap.
    struct Child: Sendable {
        let pid: pid_t

        /// Whether the child has not yet exited (does not reap it).
        var isRunning: Bool { kill(pid, 0) == 0 && !Subprocess.hasExited(pid) }

        /// Sends `signal` and waits for the child to exit; returns its wait status.
        @discardableResult
        func terminate(_ signal: Int32 = SIGKILL) -> Int32 {
            kill(pid, signal)
            return Subprocess.waitForExit(pid)
        }
    }

    /// Runs `path` with `arguments` in `directory` to the end; returns its exit status and what it
    /// wrote to stdout and stderr together.
    static func run(_ path: String, _ arguments: [String], in directory: String? = nil) throws -> (status: Int32, output: String) {
        var ends: [Int32] = [0, 0]
        guard LibcExtensions.pipe2(&ends, O_CLOEXEC) == 0 else { throw Failed(description: "pipe2 failed: errno \(errno)") }
        let child: Child
        do {
            child = try start(path, arguments, in: directory, stdout: ends[1], stderr: ends[1])
        } catch {
            close(ends[0]); close(ends[1])
            throw error
        }
        close(ends[1])
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        close(ends[0])
        let status = waitForExit(child.pid)
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitCode, String(decoding: output, as: UTF8.self))
    }

    /// Starts `path` with `arguments`; stdout and stderr go to the given descriptors (`-1`:
    /// `/dev/null`). The caller reaps the child (``Child/terminate(_:)``).
    static func start(
        _ path: String, _ arguments: [String], in directory: String? = nil, stdout: Int32 = -1, stderr: Int32 = -1
    ) throws -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if stdout >= 0 { posix_spawn_file_actions_adddup2(&actions, stdout, 1) } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if stderr >= 0 { posix_spawn_file_actions_adddup2(&actions, stderr, 2) } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        if let directory { _ = directory.withCString { LibcExtensions.addchdir(&actions, $0) } }
        // Descriptors 3 and up that are not close-on-exec (sockets other code made) stay out too.
        _ = LibcExtensions.addclosefrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Unblock every signal in the child: the test process may block some in this thread.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw Failed(description: "posix_spawn \(path) failed: errno \(result)") }
        return Child(pid: pid)
    }

    /// Waits for `pid` to exit (retrying on EINTR); returns its wait status.
    static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Whether `pid` has exited; reaps nothing (`WNOWAIT`).
    static func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
    }
}

/// Runs `body` on a thread of its own and suspends until it returns. Test support that blocks —
/// waiting for a child process, polling a peer's log until it listens — must not hold a thread of
/// the cooperative pool: with the suite in parallel (and under TSan) both pool threads of a 2-core
/// machine can be held at once, and then no test task runs at all.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
