import Foundation
import Testing
@testable import AnfetchKit

@Suite("Anfetch naming and collisions")
struct AnfetchNamingTests {
    @Test(arguments: [
        ("http://h/files/report.pdf", "report.pdf"),
        ("http://h/files/report.pdf?download=1#top", "report.pdf"),
        ("http://h/a%20b%C3%A9.txt", "a bé.txt"),
        ("http://h/", "index.html"),
        ("http://h", "index.html"),
        ("http://h/dir/", "index.html"),
        ("http://h/..%2F..%2Fetc%2Fpasswd", "passwd"),
        ("http://h/.hidden", "hidden"),
        ("http://h/..", "index.html"),
        ("http://h/x.partial", "x.partial.download"),
    ])
    func namesFromTheURLPath(url: String, name: String) throws {
        #expect(FileNaming.name(for: try #require(URL(string: url))) == name)
    }

    @Test(arguments: [
        ("attachment; filename=\"notes.txt\"", "notes.txt"),
        ("attachment; filename=plain.bin", "plain.bin"),
        ("attachment; filename=\"a;b.txt\"; size=3", "a;b.txt"),
        ("attachment; filename=\"fallback.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf", "résumé.pdf"),
        ("attachment; filename=\"../../etc/passwd\"", "passwd"),
        ("attachment; filename=\"C:\\\\Windows\\\\evil.exe\"", "evil.exe"),
        ("attachment; filename=\"..\"", nil),
        ("attachment; filename=\".bashrc\"", "bashrc"),
        ("attachment; filename=\"a\u{202E}gpj.exe\"", "agpj.exe"),
        ("inline", nil),
    ] as [(String, String?)])
    func namesFromContentDisposition(header: String, name: String?) {
        #expect(FileNaming.name(contentDisposition: header) == name)
    }

    @Test func longNamesAreCutTo255Bytes() throws {
        let name = try #require(FileNaming.sanitize(String(repeating: "é", count: 300)))
        #expect(name.utf8.count <= 255)
    }

    @Test func numberingKeepsTheExtension() {
        #expect(FileNaming.numbered("report.pdf", 1) == "report-1.pdf")
        #expect(FileNaming.numbered("data.tar.gz", 2) == "data-2.tar.gz")
        #expect(FileNaming.numbered("README", 3) == "README-3")
    }

    @Test func collisionsNeverOverwriteWithoutForce() {
        let onDisk: Set<String> = ["a.bin", "a-1.bin"]
        var claims = NameClaims()
        #expect(claims.claim("a.bin", force: false) { onDisk.contains($0) } == "a-2.bin")
        #expect(claims.claim("a.bin", force: false) { onDisk.contains($0) } == "a-3.bin")
        #expect(claims.claim("b.bin", force: false) { onDisk.contains($0) } == "b.bin")
        #expect(claims.claim("b.bin", force: false) { onDisk.contains($0) } == "b-1.bin")
    }

    @Test func forceOverwritesFilesOnDiskButNotEachOther() {
        let onDisk: Set<String> = ["a.bin"]
        var claims = NameClaims()
        #expect(claims.claim("a.bin", force: true) { onDisk.contains($0) } == "a.bin")
        #expect(claims.claim("a.bin", force: true) { onDisk.contains($0) } == "a-1.bin")
    }

    @Test func planningChecksTheRealDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("anfetch-naming-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("old".utf8).write(to: directory.appendingPathComponent("a.bin"))
        try Data("part".utf8).write(to: directory.appendingPathComponent("c.bin.partial"))
        var claims = NameClaims()
        let jobs = Runner.plan(
            ["http://h/a.bin", "http://h/x/a.bin", "not a url", "http://h/c.bin"], in: directory, force: false, claims: &claims
        )
        #expect(jobs.map { $0.target?.lastPathComponent } == ["a-1.bin", "a-2.bin", nil, "c.bin"])
        #expect(jobs[2].url == nil)
    }
}
