#if os(Linux)
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

@Suite("Curl loop: uploads")
struct CurlLoopUploadTests {
    /// Starts `request` against `/upload` and returns the server's JSON answer after success.
    private func upload(_ loop: CurlMultiLoop, _ recorder: CurlRecorder, _ request: CurlRequest) async throws -> (
        json: [String: Any], record: CurlRecorder.Record
    ) {
        let id = try loop.start(request)
        let completion = await recorder.completion(of: id)
        #expect(completion.succeeded, "\(completion.code) \(completion.message)")
        let record = recorder.record(id)
        #expect(record.heads.first?.statusCode == 200)
        return (curlJSON(record.body), record)
    }

    @Test("POST of Data: the server receives the exact bytes with their Content-Length")
    func postData() async throws {
        try await withCurlLoop { server, loop, recorder in
            let body = SeededBytes.data(seed: 3, offset: 0, count: 2_500_000)
            let request = CurlRequest(
                url: server.url("/upload"), method: "POST",
                headers: [(name: "Content-Type", value: "application/octet-stream")], body: .data(body)
            )
            let (json, record) = try await upload(loop, recorder, request)
            #expect(json["bytes"] as? Int == body.count)
            #expect(json["checksum"] as? String == String(Checksum.fnv1a64(body)))
            #expect(json["chunked"] as? Bool == false)
            #expect(record.sentTotal == Int64(body.count))
            let recorded = try #require(server.requests.last)
            #expect(recorded.method == "POST")
            #expect(recorded.header("Content-Length") == "2500000")
            #expect(recorded.header("Content-Type") == "application/octet-stream")
            #expect(recorded.header("Expect") == nil)
        }
    }

    @Test("POST without a body sends Content-Length: 0 and no curl Content-Type")
    func emptyPost() async throws {
        try await withCurlLoop { server, loop, recorder in
            let (json, _) = try await upload(loop, recorder, CurlRequest(url: server.url("/upload"), method: "POST"))
            #expect(json["bytes"] as? Int == 0)
            let recorded = try #require(server.requests.last)
            #expect(recorded.header("Content-Length") == "0")
            #expect(recorded.header("Content-Type") == nil)
        }
    }

    @Test("PUT of a file range: exactly `length` bytes from `offset` are sent")
    func putFile() async throws {
        try await TransfersSupport.withDirectory { directory in
            let file = directory.appendingPathComponent("body.bin")
            let contents = SeededBytes.data(seed: 11, offset: 0, count: 3_000_000)
            try contents.write(to: file)
            try await withCurlLoop { server, loop, recorder in
                let request = CurlRequest(
                    url: server.url("/upload"), method: "PUT", body: .file(file, offset: 1000, length: 2_000_000)
                )
                let (json, record) = try await upload(loop, recorder, request)
                let expected = contents.subdata(in: 1000..<2_001_000)
                #expect(json["bytes"] as? Int == expected.count)
                #expect(json["checksum"] as? String == String(Checksum.fnv1a64(expected)))
                #expect(record.sentTotal == 2_000_000)
                #expect(server.requests.last?.method == "PUT")
            }
        }
    }

    @Test("a file body that is missing or too short fails with CURLE_READ_ERROR and a message")
    func badFile() async throws {
        try await TransfersSupport.withDirectory { directory in
            let file = directory.appendingPathComponent("short.bin")
            try Data(count: 100).write(to: file)
            try await withCurlLoop { server, loop, recorder in
                let missing = try loop.start(CurlRequest(
                    url: server.url("/upload"), method: "POST",
                    body: .file(directory.appendingPathComponent("none"), offset: 0, length: 10)
                ))
                let short = try loop.start(CurlRequest(
                    url: server.url("/upload"), method: "POST", body: .file(file, offset: 0, length: 1000)
                ))
                let missingCompletion = await recorder.completion(of: missing)
                let shortCompletion = await recorder.completion(of: short)
                #expect(missingCompletion.code == 26)
                #expect(missingCompletion.message.contains("none"))
                #expect(shortCompletion.code == 26)
                #expect(shortCompletion.message.contains("short.bin"))
                #expect(CurlErrorMapping.urlErrorCode(for: shortCompletion.code) == .requestBodyStreamExhausted)
            }
        }
    }

    @Test("a body curl must send twice (an authentication retry) is rewound and sent whole again")
    func rewoundForAuthentication() async throws {
        try await withCurlLoop { server, loop, recorder in
            var options = CurlTransferOptions()
            options.credential = CurlCredential(user: "u", password: "p", scheme: .basicOrDigest)
            let body = SeededBytes.data(seed: 8, offset: 0, count: 200_000)
            let id = try loop.start(CurlRequest(url: server.url("/basic-auth/u/p"), method: "POST", body: .data(body), options: options))
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            #expect(recorder.record(id).heads.last?.statusCode == 200)
            // The first POST (no credential yet) carried the body, so the second needed a rewind.
            #expect(server.requests.map(\.bodyLength) == [body.count, body.count])
            #expect(recorder.record(id).sentTotal == Int64(body.count)) // the total restarted at the rewind
            let final = try #require(server.requests.last)
            #expect(final.header("Authorization") != nil)
            #expect(final.bodyLength == body.count)
            #expect(final.bodyChecksum == Checksum.fnv1a64(body))
        }
    }

    @Test("a producer that has nothing for a while pauses only its own upload; the server gets the exact bytes, chunked")
    func producer() async throws {
        try await withCurlLoop { server, loop, recorder in
            let pipe = CurlBodyPipe()
            let id = try loop.start(CurlRequest(url: server.url("/upload"), method: "POST", body: .producer(pipe, length: nil)))
            pipe.onReadable { loop.resumeSending(id) }
            let first = SeededBytes.data(seed: 5, offset: 0, count: 300_000)
            let second = SeededBytes.data(seed: 5, offset: 300_000, count: 200_000)
            pipe.write(first)
            #expect(await curlEventually { recorder.record(id).sentTotal == 300_000 })
            // Nothing to send now: the transfer waits, paused, without failing or spinning.
            try await Task.sleep(for: .milliseconds(300))
            #expect(recorder.record(id).completion == nil)
            // Another upload and a GET on the same loop are not held up by the stalled producer.
            let otherBody = SeededBytes.data(seed: 6, offset: 0, count: 1_000_000)
            let otherUpload = try loop.start(CurlRequest(url: server.url("/upload"), method: "POST", body: .data(otherBody)))
            let other = try loop.get(server.url("/bytes/1000"))
            #expect(await recorder.completion(of: other).succeeded)
            #expect(await recorder.completion(of: otherUpload).succeeded)
            #expect(curlJSON(recorder.record(otherUpload).body)["checksum"] as? String == String(Checksum.fnv1a64(otherBody)))
            #expect(recorder.record(id).completion == nil)
            pipe.write(second)
            pipe.finish()
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            let json = curlJSON(recorder.record(id).body)
            #expect(json["bytes"] as? Int == 500_000)
            #expect(json["checksum"] as? String == String(Checksum.fnv1a64(first + second)))
            #expect(json["chunked"] as? Bool == true)
            #expect(recorder.record(id).sentTotal == 500_000)
        }
    }

    @Test("a producer with a known length sends Content-Length; one that fails ends with CURLE_READ_ERROR")
    func producerLengthAndFailure() async throws {
        try await withCurlLoop { server, loop, recorder in
            let pipe = CurlBodyPipe()
            pipe.write(Array(repeating: 7, count: 1000))
            pipe.finish()
            let known = try loop.start(CurlRequest(url: server.url("/upload"), method: "PUT", body: .producer(pipe, length: 1000)))
            #expect(await recorder.completion(of: known).succeeded)
            #expect(curlJSON(recorder.record(known).body)["chunked"] as? Bool == false)
            #expect(server.requests.last?.header("Content-Length") == "1000")

            let failing = CurlBodyPipe()
            let id = try loop.start(CurlRequest(url: server.url("/upload"), method: "POST", body: .producer(failing, length: nil)))
            failing.onReadable { loop.resumeSending(id) }
            failing.write([1, 2, 3])
            failing.finish(failure: "the source went away")
            let completion = await recorder.completion(of: id)
            #expect(completion.code == 26)
            #expect(completion.message == "the source went away")
        }
    }
}
#endif
