import Foundation

extension PublicKeyPin {
    /// The pin of a certificate's public key: SHA-256 over its DER SubjectPublicKeyInfo (the same
    /// value `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256` gives).
    ///
    /// - Throws: ``NetworkingError/Kind/invalidCertificate`` when the DER is not an X.509 certificate.
    public init(certificate: Certificate) throws(NetworkingError) {
        guard let spki = Self.subjectPublicKeyInfo(of: certificate.derData) else {
            throw NetworkingError(.invalidCertificate, "the certificate's public key could not be found (not X.509 DER)")
        }
        sha256 = SHA256.digest(spki)
    }

    /// The SubjectPublicKeyInfo element (tag, length and value) of a DER certificate:
    /// `Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL, serialNumber,
    /// signature, issuer, validity, subject, subjectPublicKeyInfo, ... }, ... }`.
    static func subjectPublicKeyInfo(of der: Data) -> Data? {
        let bytes = [UInt8](der)
        guard let certificate = element(in: bytes, at: 0), bytes[0] == 0x30,
              let tbs = element(in: bytes, at: certificate.valueStart), bytes[certificate.valueStart] == 0x30 else { return nil }
        var offset = tbs.valueStart
        if bytes[offset] == 0xA0, let version = element(in: bytes, at: offset) { offset = version.end }
        for _ in 0..<5 { // serialNumber, signature, issuer, validity, subject
            guard offset < tbs.end, let skipped = element(in: bytes, at: offset) else { return nil }
            offset = skipped.end
        }
        guard offset < tbs.end, bytes[offset] == 0x30, let spki = element(in: bytes, at: offset), spki.end <= tbs.end else { return nil }
        return Data(bytes[offset..<spki.end])
    }

    /// The element starting at `offset`: where its value starts and where it ends (DER lengths).
    private static func element(in bytes: [UInt8], at offset: Int) -> (valueStart: Int, end: Int)? {
        guard offset + 2 <= bytes.count else { return nil }
        let first = bytes[offset + 1]
        var length = Int(first)
        var valueStart = offset + 2
        if first & 0x80 != 0 {
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 4, valueStart + count <= bytes.count else { return nil }
            length = bytes[valueStart..<(valueStart + count)].reduce(0) { $0 << 8 | Int($1) }
            valueStart += count
        }
        let end = valueStart + length
        return end <= bytes.count ? (valueStart, end) : nil
    }
}

/// SHA-256 (FIPS 180-4), for public-key pins; no crypto library is linked.
package enum SHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    package static func digest(_ data: Data) -> Data {
        var hash: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        let message = DigestBlocks.padded(data)
        var w = [UInt32](repeating: 0, count: 64)
        for block in stride(from: 0, to: message.count, by: 64) {
            DigestBlocks.load(message, blockAt: block, into: &w)
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7])
            for i in 0..<64 {
                let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, value) in [a, b, c, d, e, f, g, h].enumerated() { hash[i] = hash[i] &+ value }
        }
        return Data(hash.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * $0)) } })
    }

    private static func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }
}
