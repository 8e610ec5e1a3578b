#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import FoundationNetworking
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// The rule: every `CURLcode` libcurl can end a transfer
/// with maps to a meaningful `URLError.Code` (so a typed ``NetworkingError/Kind/transport(_:)``),
/// never `.unknown`; only the numbers curl.h keeps as obsolete do.
@Suite struct CurlErrorCodeTableTests {
    /// What the loaded libcurl calls `code` ("Unknown error" for numbers it does not use).
    private static func curlText(_ code: Int32) -> String {
        try? CurlLibrary.load()
        return ancurl_easy_strerror(code).map { String(cString: $0) } ?? "Unknown error"
    }

    @Test(arguments: Array(Int32(1)...101))
    func everyCodeHasAMeaning(code: Int32) {
        let mapped = CurlErrorMapping.urlErrorCode(for: code)
        let text = Self.curlText(code)
        if CurlErrorMapping.obsoleteCodes.contains(code) {
            #expect(mapped == .unknown, "obsolete CURLcode \(code) (\(text))")
            #expect(text == "Unknown error", "CURLcode \(code) is listed as obsolete but libcurl calls it \(text)")
        } else {
            #expect(mapped != nil && mapped != .unknown, "CURLcode \(code) (\(text)) maps to \(String(describing: mapped))")
        }
    }

    /// Every number the loaded libcurl has words for is in the table (a libcurl newer than the
    /// table shows here first).
    @Test(arguments: Array(Int32(1)...130))
    func everyCodeTheLibraryNamesIsMapped(code: Int32) {
        guard Self.curlText(code) != "Unknown error" else { return }
        #expect(CurlErrorMapping.urlErrorCode(for: code) != .unknown, "CURLcode \(code): \(Self.curlText(code))")
    }

    @Test("the codes the issue names", arguments: [
        (Int32(27), URLError.Code.dataLengthExceedsMaximum), // out of memory: a resource limit
        (61, .cannotDecodeContentData), // bad content encoding
        (18, .networkConnectionLost), // partial file: a truncated body
        (55, .networkConnectionLost), // send error
        (56, .networkConnectionLost), // receive error
        (92, .networkConnectionLost), // HTTP/2 stream error
        (95, .networkConnectionLost), // HTTP/3 error
        (16, .badServerResponse), // HTTP/2 framing layer
        (47, .httpTooManyRedirects),
        (63, .dataLengthExceedsMaximum), // maximum file size exceeded
        (100, .dataLengthExceedsMaximum), // too large
        (98, .clientCertificateRequired),
        (2, .resourceUnavailable), // failed init
        (4, .unsupportedURL), // not built in
        (64, .secureConnectionFailed), // use SSL failed
    ])
    func namedCodes(code: Int32, expected: URLError.Code) {
        #expect(CurlErrorMapping.urlErrorCode(for: code) == expected)
    }

    /// Through the error type callers see: a typed transport kind, the curl text kept.
    @Test func aMappedCodeBecomesATypedNetworkingError() {
        let urlError = URLError(CurlErrorMapping.urlErrorCode(for: 27)!, userInfo: [NSLocalizedDescriptionKey: "Out of memory"])
        let error = NetworkingError.transport(urlError, request: nil, response: nil, body: nil)
        #expect(error.kind == .transport(.dataLengthExceedsMaximum))
        #expect(error.message.contains("Out of memory"))
    }
}
#endif
