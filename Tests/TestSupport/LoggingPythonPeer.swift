import Foundation
#if canImport(Glibc)
import Glibc
import AsyncNetworking
#endif

/// A python3 peer run as a child process that logs to a file, as the TLS test servers are: the
/// script (``preamble`` first) gets the log file's path as its last argument, writes `PORT N`
/// there once it listens, and then a line per event for the test to read back.
final class LoggingPythonPeer: Sendable {
    let port: Int
    private let child: OwnedChild
    private let logURL: URL

    /// Writes `script` to `directory/scriptName` (once), starts it with `arguments` and the log's
    /// path, and waits (up to ``hangDeadline``) for its `PORT` line.
    /// - Throws: `TLSTestError(failure)` when it does not start.
    init(script: String, scriptName: String, in directory: URL, arguments: [String], failure: String) throws {
        let scriptURL = directory.appendingPathComponent(scriptName)
        if !FileManager.default.fileExists(atPath: scriptURL.path) {
            try Data(script.utf8).write(to: scriptURL)
        }
        logURL = directory.appendingPathComponent("\(scriptName)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let child = try Subprocess.start("/usr/bin/env", ["python3", scriptURL.path] + arguments + [logURL.path])
        self.child = OwnedChild(child)
        let deadline = Date().addingTimeInterval(hangDeadline)
        var port: Int?
        while port == nil, Date() < deadline, child.isRunning {
            port = (try? String(contentsOf: logURL, encoding: .utf8))?
                .split(separator: "\n").first { $0.hasPrefix("PORT ") }
                .flatMap { Int($0.dropFirst(5)) }
            if port == nil { usleep(20_000) }
        }
        guard let port else {
            child.terminate(SIGKILL)
            throw TLSTestError(failure)
        }
        self.port = port
    }

    /// The log lines so far.
    var log: [String] {
        ((try? String(contentsOf: logURL, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Kills the peer and reaps it (``OwnedChild/stop()``). Idempotent; also done on deinit.
    func stop() { child.stop() }

    /// The python every such script starts with: `log_path` (the last argument), a `log(line)`
    /// that appends to it from any thread, SIGTERM unblocked, a watchdog that exits when the test
    /// process is gone, `read_until(conn, buf, mark)` and `read_exact(conn, buf, n)` over a
    /// read-ahead buffer `buf = [b""]`, and
    /// `accept_tls(ctx, raw, mode)` for a server-side handshake.
    static let preamble = #"""
    import base64, os, select, signal, socket, struct, sys, threading, time
    log_path = sys.argv[-1]
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parent = os.getppid()
    def watch_parent():  # never outlive the test process
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=watch_parent, daemon=True).start()
    lock = threading.Lock()
    def log(line):
        with lock, open(log_path, "a") as f:
            f.write(line + "\n")
    def read_until(conn, buf, mark):
        # The bytes before `mark` (both consumed) from `buf[0]` (what was read ahead) and then
        # `conn`; None at the end of input.
        while mark not in buf[0]:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            buf[0] += chunk
        data, buf[0] = buf[0].split(mark, 1)
        return data
    def read_exact(conn, buf, n):
        # `n` bytes from `buf[0]` (what was read ahead) and then `conn`; fewer at the end of input.
        while len(buf[0]) < n:
            chunk = conn.recv(65536)
            if not chunk:
                break
            buf[0] += chunk
        data, buf[0] = buf[0][:n], buf[0][n:]
        return data
    def accept_tls(ctx, raw, mode="linger"):
        # The server handshake on `raw`: the TLS connection, or None once a failed handshake is
        # logged (HANDSHAKE-FAILED) and the connection ended as `mode` says: "close" at once,
        # "reset" with SO_LINGER 0, "linger" after the alert, reading on for 2 s, so that a client
        # that already wrote its request (TLS 1.3 client certificates) reads the alert, not a reset.
        conn = ctx.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
        try:
            conn.do_handshake()
            return conn
        except Exception as e:
            log("HANDSHAKE-FAILED " + str(e).replace("\n", " "))
        try:
            if mode == "reset":
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            elif mode == "linger":
                conn.shutdown(socket.SHUT_WR)
                time.sleep(2)
        except Exception:
            pass
        conn.close()
        return None

    """#
}

/// A child process a test support type owns: killed with SIGKILL (the test process may block
/// SIGTERM in the thread that spawned it, and a child inherits that mask) and reaped, once, by
/// ``stop()`` or on deinit.
final class OwnedChild: Sendable {
    let child: Subprocess.Child
    private let stopped = SanitizedMutex(false)

    init(_ child: Subprocess.Child) { self.child = child }

    /// Kills and reaps the child. Idempotent.
    func stop() {
        stopped.withLock { done in
            guard !done else { return }
            done = true
            child.terminate(SIGKILL)
        }
    }

    deinit { stop() }
}
