import Foundation

/// The body of a ``Request``, encoded when the request is built so that a request stays a plain,
/// `Hashable` value.
///
/// A value that cannot be encoded (a `NaN` for JSON, an unreadable multipart file) is kept as
/// ``invalid(_:)``: sending the request then fails with
/// ``NetworkingError/Kind/requestSerializationFailed`` before anything is sent.
public enum RequestBody: Sendable, Hashable {
    /// No body.
    case none
    /// These bytes, labelled `contentType` when the request has no `Content-Type` of its own.
    /// A body held in memory can be replayed, so its request may be retried.
    case data(Data, contentType: String?)
    /// A body that could not be encoded; the message says why.
    case invalid(String)

    /// `value` encoded as JSON by `encoder` (`Content-Type: application/json`).
    public static func json(_ value: some Encodable, encoder: JSONEncoder = JSONEncoder()) -> RequestBody {
        do {
            return .data(try encoder.encode(value), contentType: "application/json")
        } catch {
            return .invalid("\(type(of: value)) could not be encoded as JSON: \(error)")
        }
    }

    /// `items` URL-encoded as a form (`application/x-www-form-urlencoded`), RFC 3986 escaping.
    public static func form(_ items: [URLQueryItem]) -> RequestBody {
        let text = items.map { item in
            let name = URLEncoding.percentEscaped(item.name)
            guard let value = item.value else { return name }
            return name + "=" + URLEncoding.percentEscaped(value)
        }.joined(separator: "&")
        return .data(Data(text.utf8), contentType: "application/x-www-form-urlencoded")
    }

    /// `form` encoded in memory (`multipart/form-data; boundary=…`). For large files, upload the
    /// form with the manager's streamed multipart upload instead.
    public static func multipart(_ form: MultipartFormData) -> RequestBody {
        do {
            return .data(try form.encoded(), contentType: form.contentType)
        } catch {
            return .invalid("the multipart form could not be encoded: \(error.message)")
        }
    }

    /// The bytes, if any.
    var data: Data? {
        if case .data(let data, _) = self { return data }
        return nil
    }
}
