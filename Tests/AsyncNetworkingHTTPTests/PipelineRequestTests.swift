@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingCore

@Suite("Pipeline requests as values (pure)")
struct PipelineRequestTests {
    let base = URL(string: "https://api.example.com/v1")!

    func build<Value>(_ request: Request<Value>, defaultHeaders: HTTPHeaders = [:]) throws -> URLRequest {
        try RequestBuilder(
            baseURL: HTTPClient.normalizedBaseURL(base), defaultHeaders: defaultHeaders,
            timeoutInterval: request.timeoutInterval ?? 60, cachePolicy: .useProtocolCachePolicy
        ).build(request)
    }

    @Test func helpersBuildTheRequest() throws {
        let get = try build(Request<PipelineNewUser>.get("users/42", query: [URLQueryItem(name: "fields", value: "a b&c")]))
        #expect(get.httpMethod == "GET")
        #expect(get.url?.absoluteString == "https://api.example.com/v1/users/42?fields=a%20b%26c")
        #expect(get.httpBody == nil)

        let post = try build(Request<PipelineNewUser>.post("users", body: PipelineNewUser(name: "Ada")).header("X-Trace", "t1"),
                             defaultHeaders: ["User-Agent": "ua", "x-trace": "default"])
        #expect(post.httpMethod == "POST")
        #expect(post.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(post.value(forHTTPHeaderField: "X-Trace") == "t1")
        #expect(post.value(forHTTPHeaderField: "User-Agent") == "ua")
        #expect(try JSONDecoder().decode(PipelineNewUser.self, from: post.httpBody ?? Data()) == PipelineNewUser(name: "Ada"))

        let form = try build(Request<Data>.put("form", body: .form([URLQueryItem(name: "a", value: "1 2"), URLQueryItem(name: "b", value: nil)])))
        #expect(form.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(form.httpBody.map { String(decoding: $0, as: UTF8.self) } == "a=1%202&b")

        let absolute = try build(Request<Void>.delete(URL(string: "http://other.example/x?y=1")!).query("z", "2").timeout(5))
        #expect(absolute.url?.absoluteString == "http://other.example/x?y=1&z=2")
        #expect(absolute.timeoutInterval == 5)
    }

    @Test func anUnencodableBodyFailsBeforeSending() {
        let request = Request<Data>.post("users", body: PipelineNewUser(name: "Ada", score: .nan))
        guard case .invalid = request.body else {
            Issue.record("expected an invalid body")
            return
        }
        #expect(throws: NetworkingError.self) { try build(request) }
        do { _ = try build(request) } catch let error as NetworkingError {
            #expect(error.kind == .requestSerializationFailed)
        } catch {}
    }

    @Test func requestsAreHashableValuesIgnoringHooks() {
        let a = Request<PipelineNewUser>.get("users/1").header("A", "1")
        let b = Request<PipelineNewUser>.get("users/1").header("A", "1").validate { _, _, _ in }.retry(NoRetryPolicy())
        let c = Request<PipelineNewUser>.get("users/2").header("A", "1")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
        #expect(Set([a, b, c]).count == 2)
        #expect(a != a.redirect(.doNotFollow))
        #expect(a.decoding(as: Data.self).target == a.target)
    }

    @Test func cURLDescriptionIsRedactedUnlessAsked() {
        let request = Request<Data>.post(
            URL(string: "https://user:pw@api.example.com/login?token=s3cret&page=2")!,
            body: .form([URLQueryItem(name: "password", value: "hunter2")]),
            headers: ["Authorization": "Bearer abc.def", "Cookie": "session=xyz", "X-Plain": "visible"]
        )
        let redacted = request.cURLDescription()
        for secret in ["s3cret", "abc.def", "session=xyz", "hunter2", "pw@", "user:"] {
            #expect(!redacted.contains(secret), "\(secret) leaked: \(redacted)")
        }
        #expect(redacted.contains("curl -X POST 'https://api.example.com/login?token=…&page=…'"))
        #expect(redacted.contains("-H 'Authorization: <redacted>'"))
        #expect(redacted.contains("-H 'X-Plain: visible'"))
        #expect(redacted.contains("bytes redacted"))

        let plain = request.cURLDescription(redacted: false)
        for secret in ["token=s3cret", "Bearer abc.def", "session=xyz", "password=hunter2"] {
            #expect(plain.contains(secret), "\(secret) missing: \(plain)")
        }
        // A quote in a value is escaped for the shell.
        #expect(Request<Data>.get(URL(string: "http://h/x")!, headers: ["X": "it's"]).cURLDescription().contains(#"'X: it'\''s'"#))
    }

    @Test func loggingMonitorRedactsByDefault() {
        let lines = SanitizedMutex<[String]>([])
        let monitor = LoggingMonitor(level: .debug) { line in lines.withLock { $0.append(line) } }
        var request = URLRequest(url: URL(string: "https://api.example.com/a?key=s3cret")!)
        request.setValue("Bearer abc.def", forHTTPHeaderField: "Authorization")
        request.setValue("id=xyz", forHTTPHeaderField: "Cookie")
        let id = RequestID.next()
        let response = HTTPURLResponse(url: request.url!, statusCode: 503, httpVersion: nil, headerFields: nil)!
        let error = NetworkingError(.unacceptableStatusCode(503), request: request, response: response)
        monitor.receive(.adapted(id, attempt: 1, request))
        monitor.receive(.retryScheduled(id, attempt: 1, delay: .milliseconds(250), reason: error))
        monitor.receive(.completed(id, attempts: 2, .failure(error), nil))
        let text = lines.withLock { $0 }.joined(separator: "\n")
        #expect(!text.contains("s3cret") && !text.contains("abc.def") && !text.contains("xyz"), "\(text)")
        #expect(text.contains("Authorization: <redacted>"))
        #expect(text.contains("key=…"))
        #expect(text.contains("retry in 0.25 s after: status 503"))

        let quiet = LoggingMonitor(level: .error) { line in lines.withLock { $0.append(line) } }
        lines.withLock { $0 = [] }
        quiet.receive(.adapted(id, attempt: 1, request))
        quiet.receive(.retryScheduled(id, attempt: 1, delay: .zero, reason: error))
        #expect(lines.withLock { $0 }.isEmpty)
        quiet.receive(.completed(id, attempts: 1, .failure(error), nil))
        #expect(lines.withLock { $0 }.count == 1)
    }

    @Test func descriptionIsShortAndRedacted() {
        let request = Request<Data>.get("users?token=s3cret").query("page", "2").header("Authorization", "Bearer x")
        #expect(request.description == "GET users?…&page=…")
        #expect("\(Request<Void>.delete(URL(string: "https://h/x")!))" == "DELETE https://h/x")
    }

    @Test func xssiPrefixIsStripped() throws {
        let strip = DataPreprocessor.stripXSSIPrefix()
        #expect(try strip.transform(Data(")]}',\n{\"a\":1}".utf8)) == Data("{\"a\":1}".utf8))
        #expect(try strip.transform(Data(")]}'\r\n[1]".utf8)) == Data("[1]".utf8))
        #expect(try strip.transform(Data("while(1);{}".utf8)) == Data("{}".utf8))
        #expect(try strip.transform(Data("{\"a\":1}".utf8)) == Data("{\"a\":1}".utf8))
        #expect(try strip.transform(Data()) == Data())
    }

    @Test func redirectPolicyDecisions() {
        let a = URL(string: "http://a.example/x")!, b = URL(string: "http://b.example/x")!
        #expect(RedirectPolicy.follow.allows(from: a, to: b, followed: 10))
        #expect(!RedirectPolicy.doNotFollow.allows(from: a, to: a, followed: 0))
        #expect(RedirectPolicy.maximum(2).allows(from: a, to: b, followed: 1))
        #expect(!RedirectPolicy.maximum(2).allows(from: a, to: b, followed: 2))
        #expect(RedirectPolicy.sameOriginOnly.allows(from: a, to: URL(string: "http://a.example/y")!, followed: 3))
        #expect(!RedirectPolicy.sameOriginOnly.allows(from: a, to: b, followed: 0))
    }
}
