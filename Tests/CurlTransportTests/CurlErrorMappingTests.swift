@testable import AsyncNetworkingTestSupport

@Suite("Curl error mapping")
struct CurlErrorMappingTests {
    @Test("CURLcodes map to URLError codes", arguments: [
        (Int32(7), URLError.Code.cannotConnectToHost),
        (28, .timedOut),
        (6, .cannotFindHost),
        (5, .cannotFindHost),
        (56, .networkConnectionLost),
        (55, .networkConnectionLost),
        (18, .networkConnectionLost),
        (52, .badServerResponse),
        (8, .badServerResponse),
        (35, .secureConnectionFailed),
        (60, .serverCertificateUntrusted),
        (47, .httpTooManyRedirects),
        (42, .cancelled),
        (23, .cancelled),
        (1, .unsupportedURL),
        (3, .badURL),
        (61, .cannotDecodeContentData),
        (26, .requestBodyStreamExhausted),
        (9999, .unknown),
    ])
    func mapping(code: Int32, expected: URLError.Code) {
        #expect(CurlErrorMapping.urlErrorCode(for: code) == expected)
    }

    @Test("success maps to no error")
    func success() {
        #expect(CurlErrorMapping.urlErrorCode(for: 0) == nil)
    }
}
