#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation
import Glibc

/// An easy handle could not be set up for a request; the transfer completes with ``code``.
package struct CurlConfigurationError: Error {
    var code: Int32
    package var message: String
}

/// Turns a ``CurlRequest`` into easy-handle options (loop thread, on a fresh or reset handle).
enum CurlEasyConfiguration {
    /// Methods that carry a body even when none was given (sent with `Content-Length: 0`).
    static let methodsWithBody: Set<String> = ["POST", "PUT", "PATCH"]

    static func apply(to transfer: CurlTransfer) throws(CurlConfigurationError) {
        let easy = transfer.easy
        let request = transfer.request
        let options = request.options
        let userdata = Unmanaged.passUnretained(transfer).toOpaque()

        try set(easy, ANCURLOPT_URL, string: request.url.absoluteString)
        try set(easy, ANCURLOPT_ERRORBUFFER, pointer: transfer.errorBuffer)
        try set(easy, ANCURLOPT_NOSIGNAL, 1)
        try set(easy, ANCURLOPT_NOPROGRESS, 1)
        try set(easy, ANCURLOPT_FOLLOWLOCATION, 0)
        try set(easy, ANCURLOPT_TCP_NODELAY, 1)
        try set(easy, ANCURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        if ancurl_easy_setopt_ptr(easy, ANCURLOPT_PROTOCOLS_STR, "http,https") != 0 {
            try set(easy, ANCURLOPT_PROTOCOLS, Int(ANCURLPROTO_HTTP | ANCURLPROTO_HTTPS)) // before 7.85
        }
        switch options.httpVersion {
        case .automatic: try set(easy, ANCURLOPT_HTTP_VERSION, Int(ANCURL_HTTP_VERSION_2TLS))
        case .http1_1: try set(easy, ANCURLOPT_HTTP_VERSION, Int(ANCURL_HTTP_VERSION_1_1))
        case .http2PriorKnowledge: try set(easy, ANCURLOPT_HTTP_VERSION, Int(ANCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
        }
        // Reset handles come back from the pool with PIPEWAIT off: set it either way.
        try set(easy, ANCURLOPT_PIPEWAIT, options.waitsForMultiplexing ? 1 : 0)
        if options.keepsOffMultiplexedConnections {
            // TLS 1.3 is OpenSSL 3's maximum anyway: only the connection's SSL configuration changes.
            try set(easy, ANCURLOPT_SSLVERSION, Int(ANCURL_SSLVERSION_MAX_TLSv1_3))
        }
        // Content codings are decoded by CurlBodyDecoding, never by libcurl (whose decoders are
        // unbounded); the Accept-Encoding field is one of the request's header lines.
        try CurlProxyOptions.apply(options, to: easy)
        if let size = options.receiveBufferSize { try set(easy, ANCURLOPT_BUFFERSIZE, size) }
        if let timeout = options.connectTimeout { try set(easy, ANCURLOPT_CONNECTTIMEOUT_MS, milliseconds(timeout)) }
        if let timeout = options.totalTimeout { try set(easy, ANCURLOPT_TIMEOUT_MS, milliseconds(timeout)) }
        // The idle timeout is the loop's own (CurlIdleTimer), not CURLOPT_LOW_SPEED_*: curl
        // averages speed over a ~5 s window, so a 1 s low-speed time fired only after ~6 s once a
        // few bytes had arrived, and it cannot tell a stall from a pause we asked for.
        try CurlTLSConfiguration.apply(options.tls, to: transfer)
        if let credential = options.credential {
            try set(easy, ANCURLOPT_USERNAME, string: credential.user)
            try set(easy, ANCURLOPT_PASSWORD, string: credential.password)
            let schemes = switch credential.scheme {
            case .basic: ANCURLAUTH_BASIC
            case .digest: ANCURLAUTH_DIGEST
            case .basicOrDigest: ANCURLAUTH_BASIC | ANCURLAUTH_DIGEST
            }
            try set(easy, ANCURLOPT_HTTPAUTH, Int(schemes))
        }

        // Told before each request the handle sends (the first, and curl's own retries): the
        // connection's local port, and the end of the last response's trailer section. On a
        // libcurl before 7.80 there is no such callback, and neither is needed to run.
        if ancurl_easy_setopt_prereq(easy, CurlCallbacks.prereq) == ANCURLE_OK {
            try set(easy, ANCURLOPT_PREREQDATA, pointer: userdata)
        }
        // Fed only while CURLOPT_VERBOSE is on, which CurlResponseEnd turns on when it needs to.
        try check(ancurl_easy_setopt_debug(easy, CurlCallbacks.debug), "DEBUGFUNCTION")
        try set(easy, ANCURLOPT_DEBUGDATA, pointer: userdata)
        try check(ancurl_easy_setopt_func(easy, ANCURLOPT_WRITEFUNCTION, CurlCallbacks.write), "WRITEFUNCTION")
        try set(easy, ANCURLOPT_WRITEDATA, pointer: userdata)
        try check(ancurl_easy_setopt_func(easy, ANCURLOPT_HEADERFUNCTION, CurlCallbacks.header), "HEADERFUNCTION")
        try set(easy, ANCURLOPT_HEADERDATA, pointer: userdata)

        let method = request.method.uppercased() == "HEAD" ? "HEAD" : request.method
        var body = request.body
        if case .empty = body, methodsWithBody.contains(method) { body = .data(Data()) }
        var length = body.length
        if case .empty = body {
            if method == "HEAD" {
                try set(easy, ANCURLOPT_NOBODY, 1)
            } else if method != "GET" {
                try set(easy, ANCURLOPT_CUSTOMREQUEST, string: method)
            }
        } else {
            if length == nil, let declared = request.headers.last(where: { $0.name.lowercased() == "content-length" }) {
                length = Int64(declared.value.trimmingCharacters(in: .whitespaces))
            }
            if case .file(let url, _, _) = body { try open(url, for: transfer) }
            try set(easy, ANCURLOPT_UPLOAD, 1)
            try CurlEarlyResponse.install(on: transfer)
            try check(ancurl_easy_setopt_off_t(easy, ANCURLOPT_INFILESIZE_LARGE, length ?? -1), "INFILESIZE_LARGE")
            try check(ancurl_easy_setopt_func(easy, ANCURLOPT_READFUNCTION, CurlCallbacks.read), "READFUNCTION")
            try set(easy, ANCURLOPT_READDATA, pointer: userdata)
            try check(ancurl_easy_setopt_seek(easy, CurlCallbacks.seek), "SEEKFUNCTION")
            try set(easy, ANCURLOPT_SEEKDATA, pointer: userdata)
            if request.sendsTrailers { try CurlRequestTrailers.install(on: transfer) }
            if method != "PUT" { try set(easy, ANCURLOPT_CUSTOMREQUEST, string: method) }
        }

        transfer.headerList = headerList(for: request, hasBody: { if case .empty = body { false } else { true } }())
        if let list = transfer.headerList { try set(easy, ANCURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(list)) }
    }

    /// The header lines curl sends: `Name: value`, or `Name;` for an empty value; plus `Expect:`
    /// (which removes curl's `Expect: 100-continue`) unless the request sets `Expect`.
    /// With a body, a `Content-Length` field is left out: curl sends the body's own.
    static func headerLines(for request: CurlRequest, hasBody: Bool) -> [String] {
        var lines: [String] = []
        forEachHeaderLine(of: request, hasBody: hasBody) { name, value in
            switch value {
            case nil: lines.append("\(name):")
            case let value? where value.isEmpty: lines.append("\(name);")
            case let value?: lines.append("\(name): \(value)")
            }
        }
        return lines
    }

    /// The `curl_slist` of ``headerLines(for:hasBody:)``, each line written straight into a scratch
    /// C string (curl copies it), with no intermediate Swift string per line.
    private static func headerList(for request: CurlRequest, hasBody: Bool) -> OpaquePointer? {
        var list: OpaquePointer?
        forEachHeaderLine(of: request, hasBody: hasBody) { name, value in
            let valueLength = value.map { $0.isEmpty ? 0 : 1 + $0.utf8.count } ?? 0
            let length = name.utf8.count + 1 + valueLength // name, `:` or `;`, [space, value]
            // reason: a scratch C string (on the stack when small) instead of a Swift String per line;
            // every byte up to the NUL is initialized before curl reads it.
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { line in
                line.withMemoryRebound(to: UInt8.self) { bytes in
                    var end = bytes.initialize(fromContentsOf: name.utf8)
                    bytes[end] = value.map { $0.isEmpty ? UInt8(ascii: ";") : UInt8(ascii: ":") } ?? UInt8(ascii: ":")
                    end += 1
                    if let value, !value.isEmpty {
                        bytes[end] = UInt8(ascii: " ")
                        end += 1
                        end += UnsafeMutableBufferPointer(rebasing: bytes[end...]).initialize(fromContentsOf: value.utf8)
                    }
                    bytes[end] = 0
                }
                list = ancurl_slist_append(list, UnsafePointer(line.baseAddress!))
            }
        }
        return list
    }

    /// Calls `line` with each header line's name and value, in the order sent: `nil` stands for
    /// `Name:` (removes curl's own field), an empty value for `Name;` (an empty field).
    private static func forEachHeaderLine(of request: CurlRequest, hasBody: Bool, _ line: (_ name: String, _ value: String?) -> Void) {
        var setsExpect = false
        var setsAcceptEncoding = false
        for (name, value) in request.headers {
            if ResponseHead.sameName(name, "Expect") { setsExpect = true }
            if ResponseHead.sameName(name, "Accept-Encoding") { setsAcceptEncoding = true }
            if hasBody, ResponseHead.sameName(name, "Content-Length") { continue }
            line(name, value)
        }
        if !setsExpect { line("Expect", nil) }
        if request.options.decodesContent, !setsAcceptEncoding, let codings = ContentCoding.acceptEncoding {
            line("Accept-Encoding", codings)
        }
    }

    private static func open(_ url: URL, for transfer: CurlTransfer) throws(CurlConfigurationError) {
        let descriptor = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CurlConfigurationError(
                code: ANCURLE_READ_ERROR, message: "cannot open \(url.path): \(String(cString: strerror(errno)))"
            )
        }
        transfer.fileDescriptor = descriptor
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(SafeTime.milliseconds(duration))) // saturates instead of trapping
    }

    static func set(_ easy: OpaquePointer, _ option: Int32, _ value: Int) throws(CurlConfigurationError) {
        try check(ancurl_easy_setopt_long(easy, option, value), "option \(option)")
    }

    static func set(_ easy: OpaquePointer, _ option: Int32, string: String) throws(CurlConfigurationError) {
        try check(ancurl_easy_setopt_ptr(easy, option, string), "option \(option)") // curl copies strings
    }

    static func set(_ easy: OpaquePointer, _ option: Int32, pointer: UnsafeRawPointer) throws(CurlConfigurationError) {
        try check(ancurl_easy_setopt_ptr(easy, option, pointer), "option \(option)")
    }

    static func check(_ code: Int32, _ what: String) throws(CurlConfigurationError) {
        guard code != 0 else { return }
        let reason = ancurl_easy_strerror(code).map { String(cString: $0) } ?? "CURLcode \(code)"
        throw CurlConfigurationError(code: code, message: "curl_easy_setopt \(what) failed: \(reason)")
    }
}
#endif
