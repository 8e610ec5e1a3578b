#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation
import Glibc

/// Sets a transfer's ``CurlTLSOptions`` on its easy handle (loop thread). Only what differs from
/// libcurl's defaults is set: the handle was reset (`curl_easy_reset`) before, so nothing of a
/// previous transfer's policy survives.
enum CurlTLSConfiguration {
    static func apply(_ tls: CurlTLSOptions, to transfer: CurlTransfer) throws(CurlConfigurationError) {
        let easy = transfer.easy
        // Handshake notes (client-certificate requests and alerts) for https; best effort: a
        // libcurl without OpenSSL gives none, and the classification falls back to curl's words.
        _ = ancurl_tls_notes_take(easy)
        if transfer.request.url.scheme?.lowercased() == "https" { _ = ancurl_tls_notes_install(easy) }
        if !tls.verifiesPeer { try CurlEasyConfiguration.set(easy, ANCURLOPT_SSL_VERIFYPEER, 0) }
        if !tls.verifiesHost { try CurlEasyConfiguration.set(easy, ANCURLOPT_SSL_VERIFYHOST, 0) }
        if let roots = tls.trustedRootsPEM { try trust(roots, for: transfer) }
        if let pins = tls.pinnedPublicKeys {
            try CurlEasyConfiguration.set(easy, ANCURLOPT_PINNEDPUBLICKEY, string: pins)
        }
        if let certificate = tls.clientCertificatePath {
            try CurlEasyConfiguration.set(easy, ANCURLOPT_SSLCERT, string: certificate)
            try CurlEasyConfiguration.set(easy, ANCURLOPT_SSLCERTTYPE, string: "PEM")
        }
        if let key = tls.clientKeyPath {
            try CurlEasyConfiguration.set(easy, ANCURLOPT_SSLKEY, string: key)
            try CurlEasyConfiguration.set(easy, ANCURLOPT_SSLKEYTYPE, string: "PEM")
        }
        if let passphrase = tls.keyPassphrase {
            try CurlEasyConfiguration.set(easy, ANCURLOPT_KEYPASSWD, string: passphrase)
        }
        if tls.serverTrustEvaluator != nil { try CurlServerTrustGate.install(on: transfer) }
        if tls.isolatesConnection {
            try CurlEasyConfiguration.set(easy, ANCURLOPT_SSL_SESSIONID_CACHE, 0)
            try CurlEasyConfiguration.set(easy, ANCURLOPT_FORBID_REUSE, 1)
        }
    }

    /// Trusts exactly these PEM certificates: `CURLOPT_CAINFO_BLOB` (copied by curl), or on a
    /// libcurl without it (before 7.77) a temporary file readable only by this user for
    /// `CURLOPT_CAINFO`. `CURLOPT_CAPATH` is cleared so the system's directory of roots is not
    /// consulted either.
    private static func trust(_ pem: Data, for transfer: CurlTransfer) throws(CurlConfigurationError) {
        let easy = transfer.easy
        let code = pem.withUnsafeBytes { ancurl_easy_setopt_blob(easy, ANCURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }
        if code == ANCURLE_UNKNOWN_OPTION || code == ANCURLE_NOT_BUILT_IN {
            let path = try writePrivateFile(pem)
            transfer.caFilePath = path
            try CurlEasyConfiguration.set(easy, ANCURLOPT_CAINFO, string: path)
        } else {
            try CurlEasyConfiguration.check(code, "CAINFO_BLOB")
        }
        try CurlEasyConfiguration.check(ancurl_easy_setopt_ptr(easy, ANCURLOPT_CAPATH, nil), "CAPATH")
    }

    private static func writePrivateFile(_ data: Data) throws(CurlConfigurationError) -> String {
        var template = Array((NSTemporaryDirectory() + "/asyncnetworking-ca-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) } // mode 0600
        guard descriptor >= 0 else {
            throw CurlConfigurationError(code: ANCURLE_SSL_CACERT_BADFILE, message: "cannot create a CA file: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else {
            unlink(path)
            throw CurlConfigurationError(code: ANCURLE_SSL_CACERT_BADFILE, message: "cannot write the CA file \(path)")
        }
        return path
    }
}
#endif
