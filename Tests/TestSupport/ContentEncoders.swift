import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import LoopbackServer
import AsyncNetworking

/// Encoders for the content-decoding tests: zlib, brotli and zstd loaded with dlopen (the same
/// libraries libcurl links), plus bodies built by hand that no encoder would take long to make —
/// gzip / zlib / zstd bodies of zeros of any size ("bombs"). `nil` when a library is missing.
enum ContentEncoders {
    private typealias Compress2 = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt>?, UnsafePointer<UInt8>?, UInt, Int32) -> Int32
    private typealias CRC = @convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt
    private typealias ZstdCompress = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeRawPointer?, Int, Int32) -> Int
    private typealias BrotliCompress = @convention(c) (Int32, Int32, Int32, Int, UnsafePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<UInt8>?) -> Int32

    private static func symbol<T>(_ library: String, _ name: String, as type: T.Type) -> T? {
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: type)
    }

    /// RFC 1950 (zlib) at level 6.
    static func zlib(_ data: Data) -> Data? {
        guard let compress2 = symbol("libz.so.1", "compress2", as: Compress2.self) else { return nil }
        var capacity = UInt(data.count + data.count / 100 + 1024)
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let code = data.withUnsafeBytes { input in
            compress2(&output, &capacity, input.bindMemory(to: UInt8.self).baseAddress, UInt(input.count), 6)
        }
        return code == 0 ? Data(output[0..<Int(capacity)]) : nil
    }

    /// RFC 1951 (raw deflate).
    static func rawDeflate(_ data: Data) -> Data? {
        zlib(data).map { Data($0.dropFirst(2).dropLast(4)) }
    }

    /// RFC 1952 (one gzip member).
    static func gzip(_ data: Data) -> Data? {
        guard let raw = rawDeflate(data), let crc32 = symbol("libz.so.1", "crc32", as: CRC.self) else { return nil }
        let crc = data.withUnsafeBytes { crc32(0, $0.bindMemory(to: UInt8.self).baseAddress, UInt32($0.count)) }
        return Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]) + raw + littleEndian(UInt32(crc)) + littleEndian(UInt32(truncatingIfNeeded: data.count))
    }

    /// RFC 8878 (zstd) at level 3.
    static func zstd(_ data: Data) -> Data? {
        guard let compress = symbol("libzstd.so.1", "ZSTD_compress", as: ZstdCompress.self) else { return nil }
        var output = [UInt8](repeating: 0, count: data.count + data.count / 100 + 1024)
        let count = data.withUnsafeBytes { input in compress(&output, output.count, input.baseAddress, input.count, 3) }
        return count > 0 && count <= output.count ? Data(output[0..<count]) : nil
    }

    /// RFC 7932 (brotli) at `quality`, reading `count` bytes at `input`.
    static func brotli(_ input: UnsafeRawBufferPointer, quality: Int32 = 5) -> Data? {
        guard let compress = symbol("libbrotlienc.so.1", "BrotliEncoderCompress", as: BrotliCompress.self) else { return nil }
        var size = input.count / 8 + 1 << 16
        var output = [UInt8](repeating: 0, count: size)
        let ok = compress(quality, 22, 0, input.count, input.bindMemory(to: UInt8.self).baseAddress, &size, &output)
        return ok == 1 ? Data(output[0..<size]) : nil
    }

    static func brotli(_ data: Data) -> Data? {
        data.withUnsafeBytes { brotli($0) }
    }

    /// Brotli of `count` zero bytes (read from an anonymous mapping, so they cost no memory).
    static func brotliZeros(count: Int) -> Data? {
        guard let zeros = mmap(nil, count, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), zeros != MAP_FAILED else { return nil }
        defer { munmap(zeros, count) }
        return brotli(UnsafeRawBufferPointer(start: zeros, count: count), quality: 1)
    }

    /// One gzip member of `count` zeros (LoopbackServer's hand-written deflate).
    static func gzipZeros(count: Int) -> Data {
        var data = Data()
        GzipZeros.write(count: count) { data.append(contentsOf: $0) }
        return data
    }

    /// zlib (RFC 1950) of `count` zeros: the gzip member's deflate data with a zlib header and
    /// the Adler-32 of `count` zeros (a = 1, b = count mod 65521).
    static func zlibZeros(count: Int) -> Data {
        let member = gzipZeros(count: count)
        let adler = UInt32(count % 65521) << 16 | 1
        return Data([0x78, 0x01]) + member.dropFirst(10).dropLast(8) + bigEndian(adler)
    }

    /// A zstd frame of `count` zeros made of RLE blocks of 128 KiB (4 bytes each on the wire):
    /// 256 MiB is 8 KiB. Window 1 MiB, no content size, no checksum.
    static func zstdZeros(count: Int) -> Data {
        var frame = Data([0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x50])
        var left = count
        repeat {
            let size = min(left, 128 << 10)
            left -= size
            let header = UInt32(left == 0 ? 1 : 0) | 1 << 1 | UInt32(size) << 3
            frame += littleEndian(header).prefix(3)
            frame.append(0)
        } while left > 0
        return frame
    }

    private static func littleEndian(_ value: UInt32) -> Data {
        Data((0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }

    private static func bigEndian(_ value: UInt32) -> Data {
        Data(littleEndian(value).reversed())
    }
}
