import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Musl)
private let systemWrite = Musl.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif

/// The terminal: whether a descriptor is one, and how wide it is.
public enum Terminal {
    /// Whether `descriptor` is a terminal (`isatty`).
    public static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The width of the terminal on `descriptor` (`ioctl(TIOCGWINSZ)`), else `$COLUMNS`, else 80.
    public static func width(of descriptor: Int32) -> Int {
        if let size = windowSize(of: descriptor), size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    /// The height of the terminal on `descriptor` (`ioctl(TIOCGWINSZ)`), or `nil` when unknown.
    public static func height(of descriptor: Int32) -> Int? {
        windowSize(of: descriptor).flatMap { $0.ws_row > 0 ? Int($0.ws_row) : nil }
    }

    private static func windowSize(of descriptor: Int32) -> winsize? {
        var size = winsize()
        #if os(Linux)
        let request = UInt(TIOCGWINSZ)
        #else
        let request = TIOCGWINSZ
        #endif
        return ioctl(descriptor, request, &size) == 0 ? size : nil
    }

    /// Writes all of `text` to `descriptor`, retrying short writes and interrupted calls.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
        }
    }
}

/// Where the run's messages and live display go, serialised behind a lock so the display and the
/// log lines of finishing downloads never interleave.
///
/// In ``Mode/live`` the display is redrawn in place (cursor up, clear line) and log lines are
/// printed above it; in ``Mode/plain`` a progress line is printed from time to time; in
/// ``Mode/silent`` only ``error(_:)`` prints.
public final class Console: Sendable {
    /// How progress is shown.
    public enum Mode: Sendable, Equatable {
        /// A terminal: redraw in place.
        case live
        /// Not a terminal: plain periodic lines.
        case plain
        /// `--quiet` (or `--json` without a terminal on stderr): no progress.
        case silent
    }

    /// The mode.
    public let mode: Mode
    private let descriptor: Int32
    private let drawn = SanitizedMutex(0)  // lines of the live display now on screen

    /// A console writing progress and log lines to `descriptor`.
    public init(mode: Mode, descriptor: Int32) {
        self.mode = mode
        self.descriptor = descriptor
    }

    /// The width of the terminal, for the renderer.
    public var width: Int { Terminal.width(of: descriptor) }

    /// The height of the terminal, when known.
    public var height: Int? { Terminal.height(of: descriptor) }

    /// Replaces the live display with `lines` (live mode only).
    public func draw(_ lines: [String]) {
        guard mode == .live else { return }
        drawn.withLock { count in
            var output = Self.erase(count) + "\u{1B}[?25l"
            for line in lines { output += line + "\n" }
            Terminal.write(output, to: descriptor)
            count = lines.count
        }
    }

    /// A line of the log (a finished download), above the live display; nothing when silent.
    public func log(_ line: String) {
        guard mode != .silent else { return }
        drawn.withLock { count in
            Terminal.write(Self.erase(count) + line + "\n", to: descriptor)
            count = 0
        }
    }

    /// A line that is always shown (on stderr), above the live display.
    public func error(_ line: String) {
        drawn.withLock { count in
            if mode == .live { Terminal.write(Self.erase(count), to: descriptor) }
            count = 0
            Terminal.write(line + "\n", to: STDERR_FILENO)
        }
    }

    /// Removes the live display and shows the cursor again.
    public func finish() {
        guard mode == .live else { return }
        drawn.withLock { count in
            Terminal.write(Self.erase(count) + "\u{1B}[?25h", to: descriptor)
            count = 0
        }
    }

    /// Moves up `count` lines and clears from there to the end of the screen.
    static func erase(_ count: Int) -> String {
        count > 0 ? "\u{1B}[\(count)F\u{1B}[J" : ""
    }
}
