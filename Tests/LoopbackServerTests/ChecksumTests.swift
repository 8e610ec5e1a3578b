import Foundation
import Testing
@testable import LoopbackServer

@Suite struct ChecksumTests {
    @Test func fnvKnownValues() {
        #expect(Checksum.fnv1a64([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(Checksum.fnv1a64(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(Checksum.fnv1a64(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
        #expect(Checksum.fnv1a64(Array("foobar".utf8).lazy.map { $0 }) == 0x8594_4171_f739_67e8)
        var hasher = FNV1a64()
        hasher.update(Data("foo".utf8))
        Array("bar".utf8).withUnsafeBytes { hasher.update($0) }
        #expect(hasher.value == Checksum.fnv1a64(Data("foobar".utf8)))
    }

    @Test func crc32() {
        var crc = CRC32()
        Array("123456789".utf8).withUnsafeBytes { crc.update($0) }
        #expect(crc.value == 0xCBF4_3926)
        for count in [0, 1, 7, 258, 1000, 65_537] {
            var table = CRC32()
            [UInt8](repeating: 0, count: count).withUnsafeBytes { table.update($0) }
            #expect(CRC32.ofZeros(count: count) == table.value, "zeros: \(count)")
        }
    }

    @Test func patterns() {
        #expect(BytePattern.byte(at: 0) == 0 && BytePattern.byte(at: 250) == 250 && BytePattern.byte(at: 251) == 0)
        #expect(Array(BytePattern.data(offset: 249, count: 4)) == [249, 250, 0, 1])
        let whole = SeededBytes.data(seed: 42, offset: 0, count: 100)
        for (offset, count) in [(0, 0), (3, 20), (8, 16), (13, 87), (99, 1)] {
            #expect(SeededBytes.data(seed: 42, offset: offset, count: count) == whole[offset..<(offset + count)])
        }
        #expect(whole.enumerated().allSatisfy { SeededBytes.byte(seed: 42, at: $0.offset) == $0.element })
        #expect(SeededBytes.data(seed: 1, offset: 0, count: 16) != SeededBytes.data(seed: 2, offset: 0, count: 16))
    }

    @Test func gzipSizeMatchesOutput() {
        for count in [0, 1, 2, 3, 4, 258, 259, 260, 261, 262, 516, 1000, 100_000] {
            var produced = 0
            GzipZeros.write(count: count) { produced += $0.count }
            #expect(produced == GzipZeros.compressedSize(count: count), "count \(count)")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/gzip") || FileManager.default.isExecutableFile(atPath: "/usr/bin/gzip")))
    func gzipDecompressesToZeros() throws {
        for count in [0, 1, 2, 3, 10, 257, 258, 259, 261, 262, 263, 300, 1_000_003] {
            var member: [UInt8] = []
            GzipZeros.write(count: count) { member.append(contentsOf: $0) }
            let output = try gunzip(member)
            #expect(output.count == count, "count \(count)")
            #expect(output.allSatisfy { $0 == 0 }, "count \(count)")
        }
    }
}

/// Runs the system's `gzip -dc` on `input`.
func gunzip(_ input: [UInt8]) throws -> Data {
    let path = FileManager.default.isExecutableFile(atPath: "/bin/gzip") ? "/bin/gzip" : "/usr/bin/gzip"
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-\(UUID().uuidString).gz")
    try Data(input).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = ["-dc", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw ClientError(description: "gzip failed: \(process.terminationStatus)") }
    return output
}
