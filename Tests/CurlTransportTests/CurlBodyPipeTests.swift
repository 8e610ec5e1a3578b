@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// The upload side of the rule that a queue is bounded by what it costs: a body sequence of
/// 1-byte elements written into the pipe is held as a few joined chunks, not an array per byte
/// (about 50 bytes each, and an O(n) removal per chunk read). Before, 200,000 writes held 200,000
/// chunks.
@Suite("CurlBodyPipe: tiny writes")
struct CurlBodyPipeTests {
    @Test func oneByteWritesAreJoinedAndReadBackInOrder() {
        let pipe = CurlBodyPipe()
        let count = 200_000
        for index in 0..<count { pipe.write(CollectionOfOne(UInt8(truncatingIfNeeded: index))) }
        #expect(pipe.bufferedBytes == count)
        #expect(pipe.bufferedChunkCount <= 100 + count / 4096, "\(pipe.bufferedChunkCount) chunks")
        pipe.finish()
        var body: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 10_000)
        reading: while true {
            let result = buffer.withUnsafeMutableBytes { pipe.read(into: $0) }
            switch result {
            case .bytes(let count): body += buffer[0..<count]
            case .end: break reading
            default: Issue.record("unexpected \(result)"); break reading
            }
        }
        #expect(body == (0..<count).map { UInt8(truncatingIfNeeded: $0) })
    }

    @Test func largeWritesStayWhole() {
        let pipe = CurlBodyPipe()
        for _ in 0..<4 { pipe.write([UInt8](repeating: 1, count: 64 << 10)) }
        #expect(pipe.bufferedChunkCount == 4)
    }
}
