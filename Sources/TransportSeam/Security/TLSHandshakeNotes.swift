/// What the TLS handshake of a transfer's *new* connection showed about client certificates: the
/// server's `CertificateRequest`, the `Certificate` we answered with, and the last alert the
/// server sent (recorded on the curl transport by OpenSSL's message callback, see
/// `CCurlConnectionNotes.c`). A plain value; empty for a reused connection or cleartext.
///
/// Why it exists: a TLS 1.3 server that refuses the client's certificate (or its absence) does so
/// *after* the handshake, with an alert, and often closes at once. When the client writes its
/// request before reading, the write fails (EPIPE, ECONNRESET, OpenSSL's "bad write retry") and
/// the alert is never read; the handshake still showed that the server asked for a certificate.
package struct TLSHandshakeNotes: Sendable, Hashable {
    /// The server sent a `CertificateRequest`.
    var certificateRequested = false
    /// We answered with an empty `Certificate` message (no identity).
    var sentNoCertificate = false
    /// We answered with a certificate.
    var sentCertificate = false
    /// The description of the last alert the server sent (RFC 8446 §6), if any.
    var alert: UInt8?

    /// No notes.
    package init() {}

    /// From the bits `ancurl_tls_notes_take` returns (flags 1, 2, 4, 8; the alert in bits 8–15).
    package init(bits: UInt32) {
        certificateRequested = bits & 1 != 0
        sentNoCertificate = bits & 2 != 0
        sentCertificate = bits & 4 != 0
        alert = bits & 8 != 0 ? UInt8(truncatingIfNeeded: bits >> 8) : nil
    }

    /// Alerts a server sends about the client's certificate: handshake_failure (TLS 1.2 servers),
    /// bad_certificate, unsupported_certificate, certificate_revoked, certificate_expired,
    /// certificate_unknown, unknown_ca, access_denied, certificate_required.
    static let clientCertificateAlerts: Set<UInt8> = [40, 42, 43, 44, 45, 46, 48, 49, 116]

    /// `CURLcode`s of a connection that ended under the transfer: connect, TLS connect, nothing
    /// received, send and receive failures, HTTP/2 framing and stream errors.
    static let connectionEndedCodes: Set<Int32> = [7, 16, 35, 52, 55, 56, 92]

    /// Whether a transfer that failed with `code` before any response line arrived was refused
    /// for its client certificate.
    ///
    /// The rule: the server asked for a certificate in this connection's handshake, and the
    /// connection then ended without a response — and either we presented none, or the server's
    /// alert was about the certificate, or no alert could be read (the write failed first). A
    /// server that asked, accepted the certificate and then dropped the connection without a word
    /// is reported the same way: nothing distinguishes the two on the wire the client read.
    func showsClientCertificateRejection(code: Int32, responseStarted: Bool) -> Bool {
        guard certificateRequested, !responseStarted, Self.connectionEndedCodes.contains(code) else { return false }
        if sentNoCertificate || !sentCertificate { return true }
        guard let alert else { return true }
        return Self.clientCertificateAlerts.contains(alert) || alert == 0 // close_notify: ended without answering
    }
}
