#if os(Linux) && canImport(CCurlShim)
import CCurlShim

/// libcurl, loaded at run time from `libcurl.so.4` (the library FoundationNetworking itself links,
/// so it is present wherever Swift runs on Linux).
///
/// ``load()`` runs `dlopen` and `dlsym` for every function the shim uses and `curl_global_init`
/// exactly once per process (under `pthread_once` in the C shim); later calls return the first
/// outcome at once. Every other curl call in this folder happens after a successful `load()`.
package enum CurlLibrary {
    /// The file name passed to `dlopen`.
    static let libraryName = "libcurl.so.4"

    /// Loads the library once; throws the same error on every call if that failed.
    package static func load() throws(CurlLibraryError) {
        if let message = loadResult { throw CurlLibraryError(message: message) }
    }

    /// `curl_version()`, e.g. `libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13 brotli/1.0.9 …`, or
    /// `nil` when the library cannot be loaded.
    static var version: String? {
        guard loadResult == nil, let text = ancurl_version() else { return nil }
        return String(cString: text)
    }

    /// `curl_version_info`'s version number, `0xXXYYZZ` for libcurl XX.YY.ZZ (`0x075801` for
    /// 7.88.1), or 0 when the library cannot be loaded.
    package static let versionNumber: UInt32 = loadResult == nil ? UInt32(ancurl_version_number()) : 0

    /// The one place that decides whether the libcurl in use can hold a paused HTTP/2 stream
    /// cheaply, so that a transfer the library may pause for its consumer (it has a receive
    /// window) can run over HTTP/2 by default: libcurl 8.1 and later (`pausedHTTP2StreamsAreCheap(in:)`).
    package static let pausesHTTP2StreamsCheaply: Bool = pausedHTTP2StreamsAreCheap(in: versionNumber)

    /// Whether libcurl `version` (a `curl_version_info` number) holds a paused HTTP/2 stream
    /// cheaply. Before 8.1 (`lib/http2.c` of 7.88) every stream is granted a fixed 32 MiB window
    /// (`HTTP2_HUGE_WINDOW_SIZE`) that a pause does not take back, so each held stream can end
    /// up keeping 32 MiB inside libcurl; 8.1 reworked HTTP/2 flow control so that a paused
    /// stream's window is not reopened until the transfer reads again.
    package static func pausedHTTP2StreamsAreCheap(in version: UInt32) -> Bool {
        version >= 0x08_01_00
    }

    /// Whether a request body produced while it is sent (a sequence, a chunked stream: the body
    /// can wait, paused, for its producer) may run over HTTP/2. libcurl 7.88 reports neither the
    /// end of an HTTP/2 response without `content-length` nor a response the server completed and
    /// reset with `NO_ERROR` (RFC 9113 §8.1) while such a body is still open: the transfer would
    /// never end. Such bodies then go over HTTP/1.1, where the end of every response is known
    /// (``CurlResponseEnd``). Allowed from libcurl 8.1, whose HTTP/2 layer was rewritten (not
    /// verified here: the machines this was built on have 7.88).
    package static let endsHTTP2ResponsesWhileSending: Bool = versionNumber >= 0x08_01_00

    /// `nil` after a successful load, else the shim's message.
    private static let loadResult: String? = {
        var buffer = [CChar](repeating: 0, count: 512)
        let status = buffer.withUnsafeMutableBufferPointer { ancurl_load($0.baseAddress, $0.count) }
        guard status != 0 else { return nil }
        let message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return message.isEmpty ? "cannot load \(libraryName)" : message
    }()
}

/// libcurl could not be loaded: `libcurl.so.4` is missing, lacks a function this library needs
/// (7.68 or later is required for `curl_multi_poll`/`curl_multi_wakeup`), or `curl_global_init`
/// failed. ``message`` names the library and the failing step.
package struct CurlLibraryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed, naming `libcurl.so.4`.
    package let message: String

    package var description: String { message }
}
#endif
