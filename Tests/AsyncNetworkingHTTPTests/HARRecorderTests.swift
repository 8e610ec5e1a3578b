@testable import AsyncNetworkingTestSupport

/// ``HARRecorder`` over a manager's activity and over a pipeline, on the run's
/// transport: valid HAR 1.2 JSON with the expected entries, and no secret value anywhere in it.
struct HARRecorderTests {
    static let secrets = ["s3cr3t-bearer", "query-s3cr3t", "cookie-s3cr3t", "pw-s3cr3t"]

    /// Parses `data` as a HAR document; returns its entries.
    static func entries(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], sourceLocation: sourceLocation)
        let log = try #require(object["log"] as? [String: Any], sourceLocation: sourceLocation)
        #expect(log["version"] as? String == "1.2", sourceLocation: sourceLocation)
        let creator = try #require(log["creator"] as? [String: Any], sourceLocation: sourceLocation)
        #expect(creator["name"] is String && creator["version"] is String, sourceLocation: sourceLocation)
        let entries = try #require(log["entries"] as? [[String: Any]], sourceLocation: sourceLocation)
        for entry in entries {
            #expect(entry["startedDateTime"] is String && entry["time"] is Double || entry["time"] is Int, sourceLocation: sourceLocation)
            let request = try #require(entry["request"] as? [String: Any], sourceLocation: sourceLocation)
            for key in ["method", "url", "httpVersion", "headers", "queryString", "headersSize", "bodySize", "cookies"] {
                #expect(request[key] != nil, "request.\(key)", sourceLocation: sourceLocation)
            }
            let response = try #require(entry["response"] as? [String: Any], sourceLocation: sourceLocation)
            for key in ["status", "statusText", "httpVersion", "headers", "content", "redirectURL", "headersSize", "bodySize", "cookies"] {
                #expect(response[key] != nil, "response.\(key)", sourceLocation: sourceLocation)
            }
            let timings = try #require(entry["timings"] as? [String: Any], sourceLocation: sourceLocation)
            for key in ["send", "wait", "receive"] { #expect(timings[key] != nil, "timings.\(key)", sourceLocation: sourceLocation) }
            #expect(entry["cache"] is [String: Any], sourceLocation: sourceLocation)
        }
        return entries
    }

    static func header(_ entry: [String: Any], _ part: String, _ name: String) -> String? {
        let headers = (entry[part] as? [String: Any])?["headers"] as? [[String: Any]] ?? []
        return headers.first { ($0["name"] as? String)?.lowercased() == name.lowercased() }?["value"] as? String
    }

    @Test func managerTransfersAreRecordedWithSecretsRedacted() async throws {
        let har = HARRecorder()
        try await withServerAndManager(configure: { $0.httpAdditionalHeaders = ["Cookie": "session=cookie-s3cr3t"] }) { server, manager in
            let recording = await har.record(manager)
            var request = URLRequest(url: server.url("/redirect/1?token=query-s3cr3t"))
            request.setValue("Bearer s3cr3t-bearer", forHTTPHeaderField: "Authorization")
            let (body, response) = try await manager.fetch(request)
            #expect(response.statusCode == 200 && String(decoding: body, as: UTF8.self) == "redirected")
            var upload = URLRequest(url: server.url("/upload"))
            upload.httpMethod = "POST"
            _ = try await manager.upload(for: upload, from: Data(repeating: 7, count: 1000))
            _ = try await manager.fetch(from: URL(string: "http://user:pw-s3cr3t@127.0.0.1:\(server.port)/status/404")!)
            await manager.invalidateAndCancel()
            await recording.value
            let data = try har.harData()
            let text = String(decoding: data, as: UTF8.self)
            for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) is in the HAR") }
            let entries = try Self.entries(data)
            #expect(entries.count == 4, "the redirect hop, its target, the upload, the 404: \(text)")
            guard entries.count == 4 else { return }
            let hop = entries[0], target = entries[1], post = entries[2], missing = entries[3]
            let hopResponse = try #require(hop["response"] as? [String: Any])
            #expect(hopResponse["status"] as? Int == 302)
            #expect((hopResponse["redirectURL"] as? String)?.contains("/redirect/0") == true)
            #expect(Self.header(hop, "request", "Authorization") == "<redacted>")
            #expect(Self.header(hop, "request", "Cookie") == "<redacted>")
            #expect(Self.header(hop, "request", "User-Agent") == AsyncNetworkingVersion.userAgent)
            #expect(Self.header(hop, "response", "Location") == "/redirect/0?…", "a URL-valued response field is redacted like a URL")
            let query = try #require((hop["request"] as? [String: Any])?["queryString"] as? [[String: Any]])
            #expect(query.first?["name"] as? String == "token" && query.first?["value"] as? String == "…")
            let targetResponse = try #require(target["response"] as? [String: Any])
            #expect(targetResponse["status"] as? Int == 200)
            #expect((targetResponse["content"] as? [String: Any])?["size"] as? Int == 10)
            #expect(((target["request"] as? [String: Any])?["url"] as? String)?.hasPrefix("http://127.0.0.1:\(server.port)/redirect/0") == true)
            let postRequest = try #require(post["request"] as? [String: Any])
            #expect(postRequest["method"] as? String == "POST" && postRequest["bodySize"] as? Int == 1000)
            #expect((missing["response"] as? [String: Any])?["status"] as? Int == 404)
            if manager.transport == .curl {
                #expect(target["connection"] is String, "the connection identifier on curl")
                #expect(target["serverIPAddress"] as? String == "127.0.0.1")
            }
        }
    }

    @Test func pipelineAttemptsAreRecordedAndFailuresCarryTheirError() async throws {
        let har = HARRecorder(showsSecrets: false)
        let refusing = try RefusingPort()
        try await withServerAndManager { server, manager in
            var client = HTTPClient(manager: manager, baseURL: server.baseURL)
            client.pipeline.monitors.append(har)
            _ = try await client.send(Request<Data>.get("bytes/5"))
            var unreachable = HTTPClient(manager: manager, baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!)
            unreachable.pipeline.monitors.append(har)
            unreachable.pipeline.retryPolicy = NoRetryPolicy()
            _ = try? await unreachable.send(Request<Data>.get("nothing"))
            let entries = try Self.entries(try har.harData())
            #expect(entries.count == 2)
            #expect((entries.first?["response"] as? [String: Any])?["status"] as? Int == 200)
            #expect((entries.last?["response"] as? [String: Any])?["status"] as? Int == 0)
            #expect(entries.last?["_error"] is String)
        }
    }
}
