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
