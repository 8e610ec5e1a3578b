#if os(Linux) && canImport(CCurlShim)
import CCurlShim

/// Reads ``CurlMetrics`` from an easy handle with `curl_easy_getinfo` (loop thread, after the
/// transfer ended and before the handle is reset). An info curl cannot give keeps its zero or nil.
enum CurlMetricsReader {
    static func read(_ easy: OpaquePointer) -> CurlMetrics {
        var metrics = CurlMetrics()
        metrics.nameLookup = time(easy, ANCURLINFO_NAMELOOKUP_TIME_T)
        metrics.connect = time(easy, ANCURLINFO_CONNECT_TIME_T)
        metrics.appConnect = time(easy, ANCURLINFO_APPCONNECT_TIME_T)
        metrics.preTransfer = time(easy, ANCURLINFO_PRETRANSFER_TIME_T)
        metrics.startTransfer = time(easy, ANCURLINFO_STARTTRANSFER_TIME_T)
        metrics.total = time(easy, ANCURLINFO_TOTAL_TIME_T)
        metrics.bytesReceived = offset(easy, ANCURLINFO_SIZE_DOWNLOAD_T) ?? 0
        metrics.bytesSent = offset(easy, ANCURLINFO_SIZE_UPLOAD_T) ?? 0
        metrics.httpVersion = long(easy, ANCURLINFO_HTTP_VERSION).flatMap(CurlMetrics.httpVersionName)
        metrics.newConnections = long(easy, ANCURLINFO_NUM_CONNECTS) ?? 0
        metrics.redirectCount = long(easy, ANCURLINFO_REDIRECT_COUNT) ?? 0
        metrics.remoteAddress = string(easy, ANCURLINFO_PRIMARY_IP).flatMap { $0.isEmpty ? nil : $0 }
        metrics.remotePort = long(easy, ANCURLINFO_PRIMARY_PORT).flatMap { $0 > 0 ? $0 : nil }
        metrics.effectiveURL = string(easy, ANCURLINFO_EFFECTIVE_URL)
        metrics.localAddress = string(easy, ANCURLINFO_LOCAL_IP).flatMap { $0.isEmpty ? nil : $0 }
        metrics.localPort = long(easy, ANCURLINFO_LOCAL_PORT).flatMap { $0 > 0 ? $0 : nil }
        metrics.proxyConnectCode = long(easy, ANCURLINFO_HTTP_CONNECTCODE) ?? 0
        return metrics
    }

    private static func time(_ easy: OpaquePointer, _ info: Int32) -> Duration {
        offset(easy, info).map { Duration.microseconds($0) } ?? .zero
    }

    private static func offset(_ easy: OpaquePointer, _ info: Int32) -> Int64? {
        var value: Int64 = 0
        return ancurl_easy_getinfo_off_t(easy, info, &value) == 0 ? value : nil
    }

    private static func long(_ easy: OpaquePointer, _ info: Int32) -> Int? {
        var value = 0
        return ancurl_easy_getinfo_long(easy, info, &value) == 0 ? value : nil
    }

    private static func string(_ easy: OpaquePointer, _ info: Int32) -> String? {
        var value: UnsafePointer<CChar>?
        guard ancurl_easy_getinfo_ptr(easy, info, &value) == 0, let value else { return nil }
        return String(cString: value)
    }
}
#endif
