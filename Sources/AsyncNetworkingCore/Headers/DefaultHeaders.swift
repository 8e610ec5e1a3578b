import Foundation

/// The headers every ``HTTPClient`` sends unless told otherwise, built from the process like
/// AFNetworking's `AFHTTPRequestSerializer` does.
public enum DefaultHeaders {
    /// `Accept-Language` and `User-Agent` (see ``acceptLanguage(preferredLanguages:)`` and
    /// ``userAgent()``). Computed once per process.
    public static let standard: [String: String] = [
        "Accept-Language": acceptLanguage(),
        "User-Agent": userAgent(),
    ]

    /// AFNetworking's `Accept-Language`: the first six preferred languages with decreasing
    /// q-values, e.g. `en-US;q=1.0, fr;q=0.9, de;q=0.8`.
    ///
    /// - Parameter languages: the languages in order of preference. Default: the process's
    ///   `Locale.preferredLanguages` (on Linux, derived from the locale environment; `en` when empty).
    public static func acceptLanguage(preferredLanguages languages: [String] = Locale.preferredLanguages) -> String {
        let chosen = languages.isEmpty ? ["en"] : Array(languages.prefix(6))
        return chosen.enumerated().map { index, language in
            let quality = Double(10 - index) / 10
            return "\(language);q=\(quality)"
        }.joined(separator: ", ")
    }

    /// AFNetworking's `User-Agent`, for a process rather than an app bundle:
    /// `Name/Version (OS OSVersion) AsyncNetworking`, e.g. `demo/1.2 (Linux 6.1.0) AsyncNetworking`.
    ///
    /// The name is the bundle executable (or the process name); the version is the bundle's short
    /// version string when there is one (it is omitted, with its `/`, otherwise — typical on
    /// Linux). Characters outside printable ASCII are dropped, as AFNetworking's transliteration does.
    public static func userAgent() -> String {
        let info = Bundle.main.infoDictionary ?? [:]
        let name = (info["CFBundleExecutable"] as? String) ?? (info["CFBundleIdentifier"] as? String)
            ?? ProcessInfo.processInfo.processName
        let version = (info["CFBundleShortVersionString"] as? String) ?? (info["CFBundleVersion"] as? String)
        let os = ProcessInfo.processInfo.operatingSystemVersion
        let osVersion = "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)"
        let product = asciiOnly(name) + (version.map { "/" + asciiOnly($0) } ?? "")
        return "\(product) (\(operatingSystemName) \(osVersion)) AsyncNetworking"
    }

    private static var operatingSystemName: String {
        #if os(Linux)
        "Linux"
        #elseif os(macOS)
        "macOS"
        #elseif os(iOS)
        "iOS"
        #elseif os(tvOS)
        "tvOS"
        #elseif os(watchOS)
        "watchOS"
        #elseif os(visionOS)
        "visionOS"
        #elseif os(Windows)
        "Windows"
        #else
        "unknown"
        #endif
    }

    private static func asciiOnly(_ text: String) -> String {
        let kept = text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F && $0 != "(" && $0 != ")" }
        let result = String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespaces)
        return result.isEmpty ? "unknown" : result
    }
}
