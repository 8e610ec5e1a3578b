#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import AsyncNetworkingTestSupport

/// Rule: every code snippet of the Migration article (Migration.md) is compiled
/// here, verbatim, in the context its table describes (`client` an ``HTTPClient``, `manager` a
/// ``SessionManager``, `r` a `URLRequest`, other names as the row uses them), in the article's
/// order, a function per table; the rows that changed behaviour run against a loopback server.
/// The `typeCheck…` functions exist to be compiled: a snippet that stops type-checking fails the
/// build of the suite. `everySnippetOfTheArticleIsHere` checks the article against this file.
@Suite struct MigrationSnippetTests {
    struct User: Decodable, Sendable {}
    typealias Report = User
    typealias R = User
    typealias T = User

    // MARK: AFHTTPSessionManager

    static func typeCheckHTTPSessionManager(
        client: HTTPClient, c: URLSessionConfiguration, url: URL, pins: [PublicKeyPin], policy: SecurityPolicy,
        parameters: Parameters, f: URL, d: Data, n: Int64, dir: URL
    ) async throws {
        var client = client
        _ = HTTPClient()
        _ = HTTPClient(manager: SessionManager(configuration: c), baseURL: url)
        _ = client.baseURL
        _ = client.requestSerializer
        _ = client.responseSerializer
        _ = try HTTPClient(baseURL: url, securityPolicy: .pinnedPublicKeys(pins))
        do { let p = policy; try await client.setSecurityPolicy(p) }
        _ = try await client.get("users/42", as: User.self)
        let call = try await client.task(.get, "report", as: Report.self)
        _ = call.events
        _ = try await call.value
        _ = try await client.head("file")
        let p = parameters
        _ = try await client.post("users", parameters: p, as: User.self)
        _ = try await client.post("photos", parameters: p, as: R.self) { form in try form.append(fileAt: f, name: "photo") }
        _ = try await client.multipartTask(.post, "photos", as: R.self) { form in form.append("v", name: "k") }
        _ = try await client.task(.put, "u", parameters: p, as: T.self)
        _ = try await client.upload(.data(d), to: "u", as: T.self)
        _ = try await client.upload(.file(url), to: "u", as: T.self)
        _ = try await client.upload(.stream(length: n) { InputStream(url: f)! }, to: "u", as: T.self)
        _ = try await client.download("files/big", to: .directory(dir))
        _ = try await client.downloadTask("files/big", to: .directory(dir))
        client.requestSerializer = JSONRequestSerializer()
    }

    // MARK: AFURLSessionManager

    static func typeCheckURLSessionManager(
        manager: SessionManager, config: URLSessionConfiguration, r: URLRequest, url: URL, data: Data, dir: URL,
        dest: DownloadDestination, requests: [URLRequest], chunks: AsyncStream<Data>, progress: Progress,
        handle: TransferHandle, snapshot: TransferSnapshot, c: URLCredential, h: String, policy: SecurityPolicy,
        stream: @escaping @Sendable () -> InputStream, freshStream: @escaping @Sendable () -> InputStream,
        file: URL, sum: String, checksum: @escaping @Sendable () async -> String, client: HTTPClient
    ) async throws {
        _ = SessionManager(configuration: config)
        _ = manager.urlSession
        _ = SessionManager(cookieJar: CookieJar())
        do {
            let jar = try CookieJar(persistingTo: file)
            try jar.save()
        }
        _ = SessionManager(securityPolicy: policy)
        await manager.setSecurityPolicy(policy, forHost: h)
        _ = await manager.reachability
        try await manager.setWaitsForConnectivity(true)
        _ = await manager.tasks
        _ = await manager.dataTasks
        _ = try await manager.data(for: requests)
        await manager.invalidate()
        await manager.invalidateAndCancel()
        await manager.cancelAll()
        _ = try await manager.dataTask(with: r)
        _ = try await manager.data(for: r)
        _ = try await manager.uploadTask(with: r, fromFile: url)
        _ = try await manager.upload(for: r, fromFile: url)
        _ = try await manager.uploadTask(with: r, from: data)
        _ = try await manager.upload(for: r, from: data)
        _ = try await manager.uploadTask(with: r, bodyStream: BodyStreamProducer { _ in stream() })
        _ = try await manager.upload(for: r, from: chunks)
        do {
            let (replies, response) = try await manager.stream(for: r, from: chunks)
            _ = response
            _ = replies.trailers
            _ = try await manager.upload(for: r, from: chunks, trailers: .fields(["X-Checksum": sum]))
            _ = try await manager.upload(for: r, from: chunks, trailers: .computed { ["X-Checksum": await checksum()] })
            for try await event in handle.events {
                switch event {
                case .trailers(let fields): _ = fields
                default: break
                }
            }
            let reply = try await client.request(.get, "u")
            _ = reply.trailers
        }
        _ = try await manager.downloadTask(with: r, to: .file(url))
        _ = try await manager.download(for: r, to: .directory(dir))
        _ = try await manager.download(for: r, to: dest, options: DownloadOptions(resumable: true))
        await handle.bind(progress, direction: .upload)
        _ = snapshot.uploadProgress
        _ = BodyStreamProducer { attempt in freshStream() }
        await manager.setHooks(SessionHooks(challenge: { ctx in .useCredential(c) }))
        await manager.setCredential(c, forHost: h)
        await manager.setHooks(SessionHooks(redirect: { ctx in ctx.proposedRequest }))
        await manager.setHooks(SessionHooks(response: { resp, req in .allow }))
        await manager.setHooks(SessionHooks(response: { resp, req in .becomeDownload(to: dest) }))
        await manager.setHooks(SessionHooks(cache: { proposed in proposed }))
        _ = DownloadDestination.custom { response, name in url }
        for try await case .data(let d) in handle.events { _ = d }
        _ = SessionEvent.transferResumed
        _ = SessionEvent.transferSuspended
        try await handle.resume()
        try await handle.suspend()
        handle.cancel()
        _ = await manager.runningTransferCount
        for await event in await manager.transferActivity() {
            switch event {
            case .invalidated(let error): _ = error
            case .uploadProgress(let id, let p): _ = (id, p)
            case .completed(let done): _ = (done.response, done.error, done.serializedValue, done.fileURL, done.metrics)
            case .downloadProgress(let id, let p): _ = (id, p)
            case .downloadResumed(let id, let offset, let total): _ = (id, offset, total)
            case .started(let id, let request): _ = (id, request)
            case .suspended(let id): _ = id
            case .redirected, .response: break
            case .data(let id, let chunk): _ = (id, chunk)
            }
        }
        for await event in await manager.transferActivity(includingData: true) {
            if case .data(let id, let chunk) = event { _ = (id, chunk) }
        }
    }

    /// The deprecated name the `session` row mentions (compiled without a warning from a
    /// deprecated context).
    @available(*, deprecated, message: "compiles the deprecated name the Migration article mentions")
    static func typeCheckDeprecatedNames(manager: SessionManager) {
        _ = manager.session
    }

    // MARK: AFHTTPRequestSerializer and AFMultipartFormData

    static func typeCheckRequestSerializer(
        client: HTTPClient, p: Parameters, t: String, form: MultipartFormData, file: URL, url: URL, data: Data,
        n: Int64, f: URL
    ) async throws {
        var client = client
        _ = URLEncodedRequestSerializer()
        client.requestSerializer = JSONRequestSerializer()
        _ = PropertyListRequestSerializer()
        _ = try client.makeRequest(.get, "u", parameters: p)
        client.defaultHeaders["X-Client"] = "1"
        client.setAuthorization(username: "u", password: "p")
        client.setAuthorization(bearerToken: t)
        client.clearAuthorization()
        client.timeoutInterval = 30
        client.deadline = .after(.seconds(30))
        _ = client.cachePolicy
        _ = URLEncodedRequestSerializer(methodsEncodingParametersInURL: [.get, .head, .delete])
        do {
            var r = try client.makeRequest(.get, "u")
            r.httpShouldHandleCookies = false
            _ = try await client.send(r, serializer: DataResponseSerializer())
            r.allowsCellularAccess = false
        }
        var r = try client.makeRequest(.put, "u")
        r.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        r.httpBody = try form.encoded()
        _ = try await client.multipartTask(.put, "u", as: T.self) { form in form.append("v", name: "k") }
        try form.write(to: file)
        _ = try await client.upload(.file(file), to: "u", headers: ["Content-Type": form.contentType], as: T.self)
        var form = form
        try form.append(fileAt: url, name: "f")
        form.append(data, name: "f", filename: "a.png", mimeType: "image/png")
        form.append("v", name: "k")
        try form.append(stream: { InputStream(url: f)! }, length: n, name: "f", filename: "x")
        form.append(data, headers: ["Content-Disposition": "form-data; name=\"m\""])
    }

    // MARK: AFHTTPResponseSerializer

    static func typeCheckResponseSerializer(client: HTTPClient) async throws {
        var client = client
        _ = DataResponseSerializer()
        client.validation.acceptableStatusCodes = IndexSet(200..<300)
        client.validation.additionalContentTypes.insert("text/html")
        _ = JSONResponseSerializer()
        _ = JSONResponseSerializer(removesKeysWithNullValues: true)
        _ = XMLResponseSerializer()
        let xml = try await client.get("feed.xml", serializer: XMLResponseSerializer())
        _ = xml.parser()
        _ = try xml.document()
        _ = PropertyListResponseSerializer<T>()
    }

    // MARK: AFSecurityPolicy

    static func typeCheckSecurityPolicy(
        manager: SessionManager, c: Certificate, data: Data, url: URL, pinnedLeaf: Certificate, p: SecurityPolicy,
        cert: URL, key: URL
    ) async throws {
        var policy: SecurityPolicy = .default
        policy = SecurityPolicy.default
        policy = .pinnedPublicKeys([try PublicKeyPin("sha256//…"), try PublicKeyPin(certificate: c)])
        policy = .pinnedCertificates([try Certificate(pem: String(decoding: data, as: UTF8.self))])
        policy = .pinnedCertificates([Certificate(der: data)])
        _ = try Certificate.certificates(contentsOf: url)
        policy = .disabled
        await manager.setSecurityPolicy(p, forHost: "api.example.com")
        policy.serverTrustEvaluator = ServerTrustEvaluator(timeout: .seconds(5)) { ctx in ctx.certificateChain.first == pinnedLeaf ? .accept : .reject }
        policy.clientIdentity = ClientIdentity(certificateFile: cert, keyFile: key, passphrase: nil)
        _ = policy
    }

    // MARK: AFNetworkReachabilityManager

    static func typeCheckReachability(manager: SessionManager) async throws {
        _ = try NetworkReachability.shared
        _ = try NetworkReachability()
        _ = try NetworkReachability(host: "api.example.com")
        let reachability = try NetworkReachability(host: "10.0.0.7")
        let status = reachability.status
        switch status {
        case .unreachable, .reachable(via: .wifi), .reachable(via: .cellular), .reachable(via: .ethernet),
             .reachable(via: .loopbackOnly), .reachable(via: .other): break
        }
        _ = (reachability.isReachable, reachability.isReachableViaWWAN, reachability.isReachableViaWiFi, reachability.isReachableViaEthernet)
        reachability.stopMonitoring()
        for await status in reachability.statuses { print(status) }
        _ = status.description
        try await manager.setWaitsForConnectivity(true)
        _ = await manager.reachability
    }

    // MARK: The article against this file

    /// Names and forms the article shows that are not statements (a case pattern, an initializer's
    /// labels, query output): everything else in backquotes with code in it must be in this file.
    static let namesNotStatements: Set<String> = [
        ".pinningRequiresHTTPS", "SessionManager(securityPolicy:)", "setSecurityPolicy(_:forHost:)",
        "SessionHooks(challenge:)", ".started(id, request)", ".suspended(id)", ".completed(TransferCompletion)",
        ".invalidated(error)", "a[]=1", "a=1", "a[0]=1", "*.example.com", "Foundation.Progress",
    ]

    /// Every snippet in the right-hand column of the article's tables is compiled above (as
    /// written, whitespace aside), so the article's "every snippet is compiled" stays true.
    @Test func everySnippetOfTheArticleIsHere() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/AsyncNetworking/AsyncNetworking.docc/Migration.md"), encoding: .utf8
        )
        func squeezed(_ text: String) -> String { String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }) }
        let compiled = squeezed(try String(contentsOf: here, encoding: .utf8))
        var missing: [String] = []
        var checked = 0
        for line in article.split(separator: "\n") where line.hasPrefix("| ") {
            // The right-hand column, without DocC symbol links (``Name``).
            let cells = line.replacingOccurrences(of: #"``[^`]+``"#, with: "", options: .regularExpression).components(separatedBy: " | ")
            guard cells.count > 1 else { continue }
            let right = cells.dropFirst().joined(separator: " | ")
            let spans = right.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            for span in spans where span.contains(where: { "(=.".contains($0) }) && !Self.namesNotStatements.contains(span) {
                checked += 1
                if !compiled.contains(squeezed(span)) { missing.append(span) }
            }
        }
        #expect(checked > 100, "the article's snippets were found (\(checked))")
        #expect(missing.isEmpty, "snippets of Migration.md not compiled here: \(missing)")
    }

    // MARK: Rows run against a loopback server

    /// `multipartFormRequestWithMethod:` and `writingStreamContentsToFile:`: a ready request and
    /// body, nothing sent until asked; the server receives the form's parts either way.
    @Test func aBuiltMultipartRequestAndAWrittenBodyFileAreSentAsTheForm() async throws {
        try await withClient { server, client in
            var form = MultipartFormData()
            form.append("v", name: "k")
            var r = try client.makeRequest(.put, "multipart")
            r.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
            r.httpBody = try form.encoded()
            #expect(server.requests.isEmpty)                                       // built, not sent
            let sent = try await client.send(r, serializer: StringResponseSerializer())
            #expect(sent.value.contains("\"k\""))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("form-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            try form.write(to: file)
            let uploaded = try await client.upload(
                .file(file), to: "multipart", method: .put, headers: ["Content-Type": form.contentType],
                serializer: StringResponseSerializer()
            )
            #expect(uploaded == sent.value)
        }
    }

    /// `reachabilityManager`: `manager.reachability` is `nil` until the manager waits for connectivity.
    @Test func theManagersReachabilityIsNilUntilItWaitsForConnectivity() async throws {
        let manager = SessionManager()
        defer { Task { await manager.invalidateAndCancel() } }
        #expect(await manager.reachability == nil)
        do {
            try await manager.setWaitsForConnectivity(true)
        } catch {
            return    // no kernel monitor here (no netlink): nothing more to check
        }
        #expect(await manager.reachability != nil)
    }

    /// `setDataTaskDidReceiveDataBlock:` manager-wide: the body's chunks reach a stream that asked,
    /// and only that one.
    @Test(arguments: cacheTransports)
    func aStreamThatAsksForDataSeesEveryBodyByte(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: nil) { (server, client) async throws in
            let withData = await client.manager.transferActivity(includingData: true)
            let without = await client.manager.transferActivity()
            let (body, _) = try await client.manager.data(for: URLRequest(url: server.url("/bytes/200000")))
            var received = Data()
            for await event in withData {
                if case .data(_, let chunk) = event { received.append(chunk) }
                if case .completed = event { break }
            }
            #expect(received == body)
            var dataEvents = 0
            for await event in without {
                if case .data = event { dataEvents += 1 }
                if case .completed = event { break }
            }
            #expect(dataEvents == 0)
        }
    }
}
