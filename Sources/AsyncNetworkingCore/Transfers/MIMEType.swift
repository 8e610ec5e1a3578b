/// MIME types for common file extensions, for multipart file parts (AFNetworking asks UTType; this
/// table works the same on every platform).
enum MIMEType {
    /// The type for a file extension (case-insensitive, without the dot), or
    /// `application/octet-stream` when it is not known.
    static func forPathExtension(_ pathExtension: String) -> String {
        table[pathExtension.lowercased()] ?? "application/octet-stream"
    }

    /// The type for a file name's extension: what follows the last `.` of its last `/`-separated
    /// component, unless that dot starts the component. Computed here on the name's scalars, never
    /// with `NSString.pathExtension`, which traps inside Foundation on some names (found by the
    /// multipart fuzz target: a name of `/`s and bytes that are not UTF-8).
    static func forFileName(_ name: String) -> String {
        let component = name.unicodeScalars.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring.UnicodeScalarView()
        guard let dot = component.lastIndex(of: "."), dot != component.startIndex else { return forPathExtension("") }
        return forPathExtension(String(String.UnicodeScalarView(component[component.index(after: dot)...])))
    }

    private static let table: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv", "tsv": "text/tab-separated-values",
        "xml": "application/xml", "json": "application/json", "js": "text/javascript", "mjs": "text/javascript",
        "yaml": "application/yaml", "yml": "application/yaml", "pdf": "application/pdf", "rtf": "application/rtf",
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "7z": "application/x-7z-compressed",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "bmp": "image/bmp", "tif": "image/tiff",
        "tiff": "image/tiff", "heic": "image/heic", "avif": "image/avif",
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "m4a": "audio/mp4", "flac": "audio/flac",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "avi": "video/x-msvideo",
        "wasm": "application/wasm", "bin": "application/octet-stream",
        "doc": "application/msword", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint", "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ]
}
