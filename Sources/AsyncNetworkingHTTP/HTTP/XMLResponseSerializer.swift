import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif

#if canImport(FoundationXML) || os(macOS)

/// Checks that the body is well-formed XML (AFNetworking's `AFXMLParserResponseSerializer` and
/// `AFXMLDocumentResponseSerializer`) and returns it as an ``XMLBody``, from which you make an
/// `XMLDocument` or an `XMLParser`.
///
/// Accepts `application/xml` and `text/xml` by default (``ResponseValidation/xmlContentTypes``).
/// The body is parsed once here (with `XMLParser`, so a malformed body fails with
/// ``NetworkingError/Kind/responseSerializationFailed`` and the parser's error as
/// ``NetworkingError/underlyingError``); the value is the checked bytes, because `XMLDocument` and
/// `XMLParser` are classes that cannot cross tasks. An empty body is an error unless the
/// validation allows it (204, 205, `HEAD`), when ``XMLBody/data`` is empty.
///
/// ```swift
/// let feed = try await client.get("feed", serializer: XMLResponseSerializer())
/// let titles = try feed.document().nodes(forXPath: "//item/title").compactMap(\.stringValue)
/// ```
///
/// On Linux this uses FoundationXML, which loads the system's `libxml2`.
public struct XMLResponseSerializer: ValidatingResponseSerializer, Hashable {
    /// The checks made first. Default: status `200..<300`, ``ResponseValidation/xmlContentTypes``.
    public var validation: ResponseValidation
    /// Options for `XMLDocument` when checking and in ``XMLBody/document()``. Default none.
    public var documentOptions: XMLNode.Options

    /// Creates a serializer; every argument has the default described on its property.
    public init(
        validation: ResponseValidation = ResponseValidation(acceptableContentTypes: ResponseValidation.xmlContentTypes),
        documentOptions: XMLNode.Options = []
    ) {
        self.validation = validation
        self.documentOptions = documentOptions
    }

    /// Validates the response and checks that the body is XML.
    ///
    /// - Throws: the validation's errors, or ``NetworkingError/Kind/responseSerializationFailed``
    ///   (with the body) when it is not well-formed XML.
    public func serialize(_ data: Data, response: HTTPURLResponse, request: URLRequest?) throws(NetworkingError) -> XMLBody {
        try validation.validate(data, response: response, request: request)
        if data.isEmpty {
            guard validation.allowsEmptyBody(response: response, request: request) else {
                throw Self.emptyBodyError("XML", response: response, request: request)
            }
            return XMLBody(data: data, rootElementName: nil, documentOptions: documentOptions)
        }
        // XMLParser, not XMLDocument: on Linux libxml2's document parser recovers from some errors
        // and prints them to stderr, while the SAX parser reports every one and prints nothing.
        let parser = XMLParser(data: data)
        let root = RootElementCatcher()
        parser.delegate = root
        guard parser.parse(), parser.parserError == nil, let name = root.name else {
            throw NetworkingError(
                .responseSerializationFailed, "the body is not well-formed XML",
                request: request, response: response, body: data, underlyingError: parser.parserError
            )
        }
        return XMLBody(data: data, rootElementName: name, documentOptions: documentOptions)
    }

    /// Equal when validation and options are.
    public static func == (lhs: XMLResponseSerializer, rhs: XMLResponseSerializer) -> Bool {
        lhs.validation == rhs.validation && lhs.documentOptions.rawValue == rhs.documentOptions.rawValue
    }

    /// Consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(validation)
        hasher.combine(documentOptions.rawValue)
    }
}

/// A well-formed XML body checked by ``XMLResponseSerializer``: a `Sendable` value; make the
/// Foundation objects where you use them.
public struct XMLBody: Sendable, Hashable {
    /// The bytes, as received.
    public let data: Data
    /// The name of the document's root element, or `nil` for an empty body.
    public let rootElementName: String?
    let documentOptionsRawValue: UInt

    init(data: Data, rootElementName: String?, documentOptions: XMLNode.Options) {
        self.data = data
        self.rootElementName = rootElementName
        self.documentOptionsRawValue = documentOptions.rawValue
    }

    /// A new `XMLDocument` of the body (AFNetworking's `AFXMLDocumentResponseSerializer` result).
    ///
    /// - Throws: ``NetworkingError/Kind/responseSerializationFailed`` for an empty body.
    public func document() throws(NetworkingError) -> XMLDocument {
        do {
            return try XMLDocument(data: data, options: XMLNode.Options(rawValue: documentOptionsRawValue))
        } catch {
            throw NetworkingError(.responseSerializationFailed, "the body is not an XML document", body: data, underlyingError: error)
        }
    }

    /// A new `XMLParser` over the body, not yet started (AFNetworking's
    /// `AFXMLParserResponseSerializer` result): set its delegate, then call `parse()`.
    public func parser() -> XMLParser {
        XMLParser(data: data)
    }
}

/// Records the name of the first element a parser meets.
private final class RootElementCatcher: NSObject, XMLParserDelegate {
    var name: String?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        if name == nil { name = elementName }
    }
}

extension ResponseValidation {
    /// The XML types: `application/xml` and `text/xml` (AFNetworking's), and `application/atom+xml`,
    /// `application/rss+xml`.
    public static let xmlContentTypes: Set<String> = ["application/xml", "text/xml", "application/atom+xml", "application/rss+xml"]
}
#endif
