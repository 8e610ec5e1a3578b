import Foundation

/// An X.509 certificate, held as its DER bytes: a trust anchor for
/// ``SecurityPolicy/Evaluation/customRoots(_:)`` or a pin for
/// ``SecurityPolicy/Evaluation/pinnedCertificates(_:)``.
///
/// The bytes are not parsed beyond their PEM armour: a certificate that is not valid X.509 makes
/// the TLS library reject the connection (as an untrusted server), it never widens trust.
public struct Certificate: Sendable, Hashable {
    /// The certificate in DER encoding.
    public let derData: Data

    /// A certificate from its DER bytes (as exported by most tools with `-outform der`).
    public init(der: Data) {
        derData = der
    }

    /// Every certificate in PEM text (`-----BEGIN CERTIFICATE-----` blocks, in order; anything
    /// between blocks is ignored).
    ///
    /// - Throws: ``NetworkingError/Kind/invalidCertificate`` when the text holds no certificate
    ///   block or a block is not valid base64.
    public static func certificates(pem: String) throws(NetworkingError) -> [Certificate] {
        var found: [Certificate] = []
        var remaining = Substring(pem)
        while let begin = remaining.range(of: beginMarker) {
            guard let end = remaining.range(of: endMarker, range: begin.upperBound..<remaining.endIndex) else {
                throw NetworkingError(.invalidCertificate, "a PEM certificate block has no END line")
            }
            let body = remaining[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)), !der.isEmpty else {
                throw NetworkingError(.invalidCertificate, "a PEM certificate block is not valid base64")
            }
            found.append(Certificate(der: der))
            remaining = remaining[end.upperBound...]
        }
        guard !found.isEmpty else {
            throw NetworkingError(.invalidCertificate, "the PEM text holds no -----BEGIN CERTIFICATE----- block")
        }
        return found
    }

    /// The first certificate of PEM text. See ``certificates(pem:)``.
    public init(pem: String) throws(NetworkingError) {
        self = try Self.certificates(pem: pem)[0]
    }

    /// Every certificate in a file, PEM (one or more blocks) or DER (one certificate), told apart
    /// by content. Reads the file now (it suspends nothing; the read is synchronous).
    ///
    /// - Throws: ``NetworkingError/Kind/fileReadFailed`` when the file cannot be read,
    ///   ``NetworkingError/Kind/invalidCertificate`` when it holds no certificate.
    public static func certificates(contentsOf url: URL) throws(NetworkingError) -> [Certificate] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw NetworkingError(.fileReadFailed, "cannot read the certificate file \(url.path)", underlyingError: error, fileURL: url)
        }
        if let text = String(data: data, encoding: .utf8), text.contains(beginMarker) {
            return try certificates(pem: text)
        }
        // DER: an X.509 certificate is one ASN.1 SEQUENCE.
        guard data.first == 0x30, data.count > 16 else {
            throw NetworkingError(.invalidCertificate, "\(url.path) is neither PEM nor DER", fileURL: url)
        }
        return [Certificate(der: data)]
    }

    /// The certificate as a PEM block (64-column base64), as libcurl's CA bundles want it.
    public var pemEncoded: String {
        let base64 = derData.base64EncodedString()
        var lines = [Self.beginMarker]
        var index = base64.startIndex
        while index < base64.endIndex {
            let next = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(String(base64[index..<next]))
            index = next
        }
        lines.append(Self.endMarker)
        return lines.joined(separator: "\n") + "\n"
    }

    static let beginMarker = "-----BEGIN CERTIFICATE-----"
    static let endMarker = "-----END CERTIFICATE-----"
}

/// A public-key pin: the SHA-256 digest of a certificate's DER-encoded SubjectPublicKeyInfo
/// (SPKI), the form HPKP and libcurl's `CURLOPT_PINNEDPUBLICKEY` use.
///
/// Make one from a certificate (``init(certificate:)``), or from its text, `sha256//` followed by
/// the base64 digest:
///
/// ```sh
/// openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der \
///   | openssl dgst -sha256 -binary | base64
/// ```
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32-byte SHA-256 digest of the SPKI.
    public let sha256: Data

    /// A pin from `sha256//<base64>` (the prefix may be left out).
    /// - Throws: ``NetworkingError/Kind/invalidCertificate`` unless it is 32 bytes of base64.
    public init(_ text: String) throws(NetworkingError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let base64 = trimmed.hasPrefix("sha256//") ? String(trimmed.dropFirst(8)) : trimmed
        guard let digest = Data(base64Encoded: base64), digest.count == 32 else {
            throw NetworkingError(.invalidCertificate, "\(text.debugDescription) is not a sha256//<base64 of 32 bytes> pin")
        }
        sha256 = digest
    }

    /// A pin from the raw 32-byte digest.
    /// - Throws: ``NetworkingError/Kind/invalidCertificate`` unless it is 32 bytes.
    public init(sha256 digest: Data) throws(NetworkingError) {
        guard digest.count == 32 else {
            throw NetworkingError(.invalidCertificate, "a SHA-256 pin has 32 bytes, not \(digest.count)")
        }
        sha256 = digest
    }

    /// `sha256//<base64>`.
    public var description: String { "sha256//" + sha256.base64EncodedString() }
}
