@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// The multipart builder, and multipart bodies round-tripped through `/multipart`.
@Suite("Transfers multipart", .serialized)
struct TransfersMultipartTests {
    struct EchoedPart: Equatable {
        var name: String
        var filename: String?
        var contentType: String?
        var size: Int
        var checksum: String
    }

    static func parts(_ body: Data) throws -> [EchoedPart] {
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let parts = try #require(json["parts"] as? [[String: Any]])
        return parts.map {
            EchoedPart(
                name: $0["name"] as? String ?? "?", filename: $0["filename"] as? String,
                contentType: $0["contentType"] as? String, size: $0["size"] as? Int ?? -1, checksum: $0["checksum"] as? String ?? ""
            )
        }
    }

    static func sum(_ data: Data) -> String { String(Checksum.fnv1a64(data)) }

    static let encodings: [MultipartEncoding] = [.default, .temporaryFile, .chunked]

    @Test(arguments: encodings)
    func formRoundTripsWithItsPartsFilenamesTypesAndBytes(encoding: MultipartEncoding) async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let before = TransfersSupport.temporaryFiles(kinds: ["multipart"])
                let image = directory.appendingPathComponent("photo.PNG")
                try TransfersSupport.writeSeeded(image, seed: 1, count: 700_000)
                let notes = directory.appendingPathComponent("notes.data")
                try TransfersSupport.writeSeeded(notes, seed: 2, count: 5_000)
                let blob = SeededBytes.data(seed: 3, offset: 0, count: 40_000)
                let json = Data(#"{"a":1}"#.utf8)

                var form = MultipartFormData()
                form.append("Ada Lovelace", name: "author")
                form.append("héllo \"quoted\"", name: "weird \"name\"")
                form.append(json, name: "meta", filename: "meta.json")
                form.append(blob, name: "blob", filename: "blob.bin", mimeType: "application/x-custom")
                form.append(Data(), name: "empty")
                try form.append(fileAt: image, name: "photo")
                try form.append(fileAt: notes, name: "notes", filename: "renamed.txt", mimeType: "text/x-notes")

                let (body, response) = try await manager.upload(multipart: form, to: server.url("/multipart"), encoding: encoding)
                #expect(response.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")
                let echoed = try Self.parts(body)
                #expect(echoed == [
                    EchoedPart(name: "author", filename: nil, contentType: nil, size: 12, checksum: Self.sum(Data("Ada Lovelace".utf8))),
                    EchoedPart(name: "weird %22name%22", filename: nil, contentType: nil,
                               size: Data("héllo \"quoted\"".utf8).count, checksum: Self.sum(Data("héllo \"quoted\"".utf8))),
                    EchoedPart(name: "meta", filename: "meta.json", contentType: "application/json", size: json.count, checksum: Self.sum(json)),
                    EchoedPart(name: "blob", filename: "blob.bin", contentType: "application/x-custom", size: blob.count, checksum: Self.sum(blob)),
                    EchoedPart(name: "empty", filename: nil, contentType: nil, size: 0, checksum: Self.sum(Data())),
                    EchoedPart(name: "photo", filename: "photo.PNG", contentType: "image/png", size: 700_000,
                               checksum: String(TransfersSupport.checksum(seed: 1, count: 700_000))),
                    EchoedPart(name: "notes", filename: "renamed.txt", contentType: "text/x-notes", size: 5_000,
                               checksum: String(TransfersSupport.checksum(seed: 2, count: 5_000))),
                ])
                let sent = try #require(TransfersSupport.requests(server, path: "/multipart").last)
                #expect(sent.method == "POST")
                #expect(sent.header("Content-Type") == form.contentType)
                if encoding == .chunked {
                    #expect(sent.header("Transfer-Encoding")?.lowercased() == "chunked")
                    #expect(sent.header("Content-Length") == nil)
                } else {
                    #expect(sent.header("Content-Length") == String(try form.contentLength()), "a true Content-Length")
                    #expect(sent.header("Transfer-Encoding") == nil)
                }
                #expect(Int64(sent.bodyLength) == (try form.contentLength()))
                #expect(await eventually { Set(TransfersSupport.temporaryFiles(kinds: ["multipart"])).isSubset(of: Set(before)) }, "no spooled body is left")
            }
        }
    }

    @Test func largeFilePartUploadsThroughATemporaryFile() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 16 << 20
                let file = directory.appendingPathComponent("video.mp4")
                try TransfersSupport.writeSeeded(file, seed: 6, count: count)
                var form = MultipartFormData()
                form.append("clip", name: "title")
                try form.append(fileAt: file, name: "video")
                var request = URLRequest(url: server.url("/multipart"))
                request.httpMethod = "POST"
                let handle = try await manager.uploadTask(with: request, multipart: form)
                var progress: [TransferProgress] = []
                var body = Data()
                for try await event in handle.events {
                    if let value = event.uploadProgressValue { progress.append(value) }
                    if case .data(let chunk) = event { body.append(chunk) }
                }
                let length = try form.contentLength()
                #expect(TransfersSupport.isMonotonic(progress, endingAt: length))
                let video = try #require(try Self.parts(body).last)
                #expect(video.contentType == "video/mp4" && video.size == count)
                #expect(video.checksum == String(TransfersSupport.checksum(seed: 6, count: count)))
            }
        }
    }

    @Test func missingFileIsATypedErrorBeforeAnythingIsSent() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                var form = MultipartFormData()
                let missing = directory.appendingPathComponent("missing.txt")
                let appendError = await expectNetworkingError { try form.append(fileAt: missing, name: "file") }
                #expect(appendError?.kind == .fileReadFailed && appendError?.fileURL == missing)
                #expect(form.count == 0)

                let vanishing = directory.appendingPathComponent("vanishing.txt")
                try Data("soon gone".utf8).write(to: vanishing)
                try form.append(fileAt: vanishing, name: "file")
                try FileManager.default.removeItem(at: vanishing)
                for encoding in Self.encodings {
                    let error = await expectNetworkingError {
                        try await manager.upload(multipart: form, to: server.url("/multipart"), encoding: encoding)
                    }
                    #expect(error?.kind == .fileReadFailed && error?.fileURL == vanishing)
                }
                let directoryError = await expectNetworkingError { try form.append(fileAt: directory, name: "dir") }
                #expect(directoryError?.kind == .fileReadFailed)
                #expect(server.requests.isEmpty, "nothing was sent")
            }
        }
    }

    @Test func encodedBodyHasTheExactLayout() throws {
        var form = MultipartFormData(boundary: "XyZ")
        form.append("1", name: "a")
        form.append(Data([0, 1]), name: "b", filename: "b.txt")
        let expected = "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"b\"; filename=\"b.txt\"\r\nContent-Type: text/plain\r\n\r\n\u{0}\u{1}\r\n"
            + "--XyZ--\r\n"
        #expect(try form.encoded() == Data(expected.utf8))
        #expect(try form.contentLength() == Int64(expected.utf8.count))
        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
        #expect(try MultipartFormData(boundary: "e").encoded() == Data("--e--\r\n".utf8))
    }

    @Test func writeToFileMatchesTheEncodedBodyAndRefusesToOverwrite() async throws {
        try await TransfersSupport.withDirectory { directory in
            let source = directory.appendingPathComponent("part.bin")
            try TransfersSupport.writeSeeded(source, seed: 4, count: 600_000)
            var form = MultipartFormData()
            form.append("x", name: "x")
            try form.append(fileAt: source, name: "part")
            let target = directory.appendingPathComponent("body.multipart")
            try form.write(to: target)
            #expect(try Data(contentsOf: target) == (try form.encoded()))
            let error = await expectNetworkingError { try form.write(to: target) }
            #expect(error?.kind == .fileWriteFailed)
        }
    }

    @Test func boundariesAreRandomAndTypesAreInferred() {
        #expect(MultipartFormData().boundary != MultipartFormData().boundary)
        #expect(MultipartFormData.randomBoundary().count <= 70)
        #expect(MultipartFormData.mimeType(forPathExtension: "JPG") == "image/jpeg")
        #expect(MultipartFormData.mimeType(forPathExtension: "json") == "application/json")
        #expect(MultipartFormData.mimeType(forPathExtension: "unknown-ext") == "application/octet-stream")
        #expect(MultipartFormData.escape("a\"b\r\nc") == "a%22b%0D%0Ac")
    }
}
