#if os(Linux) && canImport(CCurlShim)
import CCurlShim

/// Request trailer fields on the curl transport: `CURLOPT_TRAILERFUNCTION` (libcurl 7.64), which
/// libcurl calls once on the loop thread, right before it ends a chunked HTTP/1.1 body (after the
/// read callback answered the end), to collect `Name: value` lines for the trailer section.
///
/// The fields come from the body's producer (``CurlBodyProducer/trailerFields()``); the Session
/// layer checked them (``TrailerFieldRules``) before handing them over, and
/// ``CurlRequest/validate()`` refused a request that would send them on HTTP/2 (libcurl 7.88's
/// HTTP/2 upload never calls the callback: the fields would be dropped without a word).
enum CurlRequestTrailers {
    /// Installs the callback on `transfer`'s easy handle (a chunked producer body).
    static func install(on transfer: CurlTransfer) throws(CurlConfigurationError) {
        let userdata = Unmanaged.passUnretained(transfer).toOpaque()
        try CurlEasyConfiguration.check(an_curl_set_trailer_function(transfer.easy, callback, userdata), "TRAILERFUNCTION")
    }

    /// The lines for the trailer section; nothing when the body has no producer.
    static func lines(for request: CurlRequest) -> [String] {
        guard case .producer(let producer, _) = request.body else { return [] }
        return producer.trailerFields().map { "\($0.name): \($0.value)" }
    }

    /// Appends the lines to curl's list (curl frees it once sent). `userdata` is the transfer,
    /// unretained: the core keeps it alive while curl may call.
    static let callback: an_trailer_callback = { list, userdata in
        guard let list, let userdata else { return AN_CURL_TRAILERFUNC_OK }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        for line in lines(for: transfer.request) {
            guard let appended = ancurl_slist_append(list.pointee, line) else { return AN_CURL_TRAILERFUNC_ABORT }
            list.pointee = appended
        }
        return AN_CURL_TRAILERFUNC_OK
    }
}
#endif
