@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

@Suite("Curl request values (pure)")
struct CurlRequestTests {
    private let url = URL(string: "http://127.0.0.1:1/x")!

    @Test("validation refuses non-http schemes, bad methods and header injection")
    func validation() {
        #expect(throws: CurlRequestError.self) { try CurlRequest(url: URL(string: "file:///etc/passwd")!).validate() }
        #expect(throws: CurlRequestError.self) { try CurlRequest(url: url, method: "").validate() }
        #expect(throws: CurlRequestError.self) { try CurlRequest(url: url, method: "GE T").validate() }
        #expect(throws: CurlRequestError.self) { try CurlRequest(url: url, headers: [(name: "Bad Name", value: "x")]).validate() }
        #expect(throws: CurlRequestError.self) { try CurlRequest(url: url, headers: [(name: "X", value: "a\nb")]).validate() }
        #expect(throws: CurlRequestError.self) {
            try CurlRequest(url: url, body: .file(url, offset: -1, length: 1)).validate()
        }
        #expect(throws: Never.self) {
            try CurlRequest(url: URL(string: "HTTPS://example.com")!, method: "PATCH", headers: [(name: "X-Ok", value: "")]).validate()
        }
    }

    @Test("body lengths: data and file are known, a producer's is what it says")
    func lengths() {
        #expect(CurlRequestBody.empty.length == nil)
        #expect(CurlRequestBody.data(Data(count: 7)).length == 7)
        #expect(CurlRequestBody.file(url, offset: 3, length: 9).length == 9)
        #expect(CurlRequestBody.producer(CurlBodyPipe(), length: nil).length == nil)
        #expect(CurlRequestBody.producer(CurlBodyPipe(), length: 5).length == 5)
    }

    @Test("a URLRequest converts with its method, headers, body and timeout as the idle timeout")
    func fromURLRequest() throws {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("1", forHTTPHeaderField: "X-A")
        urlRequest.httpBody = Data("{}".utf8)
        urlRequest.timeoutInterval = 2.5
        let request = try #require(CurlRequest(urlRequest))
        #expect(request.url == url)
        #expect(request.method == "POST")
        #expect(request.headers.map(\.name) == ["Content-Type", "X-A"])
        #expect(request.options.idleTimeout == .milliseconds(2500))
        guard case .data(let body) = request.body else { Issue.record("expected a data body"); return }
        #expect(body == Data("{}".utf8))
        let plain = try #require(CurlRequest(URLRequest(url: url), body: .empty))
        #expect(plain.method == "GET")
    }

    @Test("a completion's URLError code: nil on success, cancelled for a cancel, else the mapping")
    func completionCode() {
        var completion = CurlCompletion(code: 0, message: "", wasCancelled: false, metrics: CurlMetrics())
        #expect(completion.urlErrorCode == nil)
        completion.code = 7
        #expect(completion.urlErrorCode == .cannotConnectToHost)
        completion.code = 42
        completion.wasCancelled = true
        #expect(completion.urlErrorCode == .cancelled)
    }
}

#if os(Linux)
@Suite("Curl easy configuration (pure)")
struct CurlEasyConfigurationTests {
    private let url = URL(string: "http://127.0.0.1:1/x")!

    @Test("header lines: empty values as `Name;`, Expect removed unless set, Content-Length left to curl with a body")
    func headerLines() {
        let request = CurlRequest(url: url, headers: [
            (name: "X-Empty", value: ""), (name: "Accept", value: "*/*;q=0.5"), (name: "Content-Length", value: "3"),
        ])
        // The codings the library decodes itself (ContentDecodingTests), unless the request names its own.
        let accept = ContentCoding.acceptEncoding.map { ["Accept-Encoding: \($0)"] } ?? []
        #expect(CurlEasyConfiguration.headerLines(for: request, hasBody: true) == ["X-Empty;", "Accept: */*;q=0.5", "Expect:"] + accept)
        #expect(CurlEasyConfiguration.headerLines(for: request, hasBody: false)
            == ["X-Empty;", "Accept: */*;q=0.5", "Content-Length: 3", "Expect:"] + accept)
        let expecting = CurlRequest(url: url, headers: [(name: "Expect", value: "100-continue"), (name: "Accept-Encoding", value: "br")])
        #expect(CurlEasyConfiguration.headerLines(for: expecting, hasBody: true) == ["Expect: 100-continue", "Accept-Encoding: br"])
    }
}
#endif
