import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Returns the body as text, decoded with the response's `charset` (AFNetworking's string
/// handling). An empty body is `""`, never an error.
///
/// The encoding is, in order: ``encoding`` when set; the `charset` parameter of `Content-Type`
/// (`utf-8`, `iso-8859-1`/`latin1`, `utf-16` with or without a byte-order mark, `utf-16le`,
/// `utf-16be`, `utf-32`, `us-ascii`, `windows-1250`…`1254`, `iso-8859-2`, `shift_jis`,
/// `euc-jp`, `macintosh`); ``defaultEncoding`` when there is none or it is unknown.
public struct StringResponseSerializer: ValidatingResponseSerializer, Hashable {
    /// The checks made first. Default: status `200..<300`, any content type.
    public var validation: ResponseValidation
    /// Forces this encoding, ignoring the response's charset. Default `nil`.
    public var encoding: String.Encoding?
    /// The encoding when the response names none (or one this serializer does not know).
    /// Default `.utf8` (HTTP/1.1's old ISO-8859-1 default was removed by RFC 7231).
    public var defaultEncoding: String.Encoding

    /// Creates a serializer; every argument has the default described on its property.
    public init(
        encoding: String.Encoding? = nil,
        defaultEncoding: String.Encoding = .utf8,
        validation: ResponseValidation = ResponseValidation()
    ) {
        self.encoding = encoding
        self.defaultEncoding = defaultEncoding
        self.validation = validation
    }

    /// Validates and decodes the body.
    ///
    /// - Throws: ``NetworkingError/Kind/responseSerializationFailed`` when the bytes are not valid
    ///   in the chosen encoding (for example Latin-1 bytes labelled UTF-8).
    public func serialize(_ data: Data, response: HTTPURLResponse, request: URLRequest?) throws(NetworkingError) -> String {
        try validation.validate(data, response: response, request: request)
        guard !data.isEmpty else { return "" }
        let charset = ResponseValidation.charset(of: response)
        let chosen = encoding ?? charset.flatMap(Self.encoding(forCharset:)) ?? defaultEncoding
        guard let text = String(data: data, encoding: chosen) else {
            throw NetworkingError(
                .responseSerializationFailed, "the body is not valid \(chosen) text (charset \(charset ?? "not given"))",
                request: request, response: response, body: data
            )
        }
        return text
    }

    /// The `String.Encoding` for an IANA charset name, or `nil` when it is not one of the supported ones.
    public static func encoding(forCharset name: String) -> String.Encoding? {
        switch name.lowercased() {
        case "utf-8", "utf8": .utf8
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "iso_8859-1": .isoLatin1
        case "iso-8859-2", "iso8859-2", "latin2", "latin-2": .isoLatin2
        case "utf-16", "utf16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "utf-32", "utf32": .utf32
        case "utf-32le": .utf32LittleEndian
        case "utf-32be": .utf32BigEndian
        case "us-ascii", "ascii": .ascii
        case "windows-1250", "cp1250": .windowsCP1250
        case "windows-1251", "cp1251": .windowsCP1251
        case "windows-1252", "cp1252": .windowsCP1252
        case "windows-1253", "cp1253": .windowsCP1253
        case "windows-1254", "cp1254": .windowsCP1254
        case "shift_jis", "shift-jis", "sjis": .shiftJIS
        case "euc-jp": .japaneseEUC
        case "macintosh", "mac", "x-mac-roman": .macOSRoman
        default: nil
        }
    }
}
