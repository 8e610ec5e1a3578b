#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation

/// Runs a policy's ``ServerTrustEvaluator`` for a curl transfer, from `CURLOPT_PREREQFUNCTION`:
/// after the TLS handshake and curl's own checks (chain, host name, pinned key), before any byte
/// of the request is written (loop thread).
///
/// Why not inside the handshake: libcurl 7.88's OpenSSL backend treats OpenSSL 3's
/// `SSL_ERROR_WANT_RETRY_VERIFY` (a verify callback asking to suspend the handshake) as a failed
/// connect — curl learned to pause on it only in 8.16 — so a verify callback could only block the
/// loop just the same, and it runs before curl checks the host name and pins. Here the evaluator
/// sees only servers that passed every check, and needs no libssl symbol: the presented chain
/// comes from `CURLINFO_CERTINFO`.
///
/// The answer is awaited by blocking the loop thread (bounded by ``ServerTrustEvaluator/timeout``;
/// ended at once by a cancel of the transfer or the loop's shutdown, see ``CurlTrustWait``).
package enum CurlServerTrustGate {
    /// Sets the options the gate needs: the certificate chain gathered, the callback installed.
    static func install(on transfer: CurlTransfer) throws(CurlConfigurationError) {
        let easy = transfer.easy
        let code = ancurl_easy_setopt_prereq(easy, CurlCallbacks.prereq)
        guard code == ANCURLE_OK else {
            let version = ancurl_version().map { String(cString: $0) } ?? "this libcurl"
            throw CurlConfigurationError(
                code: code,
                message: "\(version) has no CURLOPT_PREREQFUNCTION (libcurl 7.80 or later): the security policy's server-trust evaluator cannot run, so nothing is sent"
            )
        }
        try CurlEasyConfiguration.set(easy, ANCURLOPT_PREREQDATA, pointer: Unmanaged.passUnretained(transfer).toOpaque())
        try CurlEasyConfiguration.set(easy, ANCURLOPT_CERTINFO, 1)
    }

    /// The callback's answer for `transfer` on `connection`.
    static func check(_ transfer: CurlTransfer, on connection: CurlTrustApprovals.Connection) -> Int32 {
        guard let evaluator = transfer.request.options.tls.serverTrustEvaluator else { return ANCURL_PREREQFUNC_OK }
        let host = transfer.request.url.host ?? ""
        let core = transfer.core
        var newConnections = 0
        _ = ancurl_easy_getinfo_long(transfer.easy, ANCURLINFO_NUM_CONNECTS, &newConnections)
        if newConnections == 0 {
            // A reused connection: only one this evaluator accepted for this host will do.
            if core.trustApprovals.approves(connection, evaluator: evaluator.id, host: host) { return ANCURL_PREREQFUNC_OK }
            guard transfer.restartsForTrust == 0 else { return refuse(transfer, connection, .invalidChain) }
            transfer.wantsFreshConnection = true // nothing was sent: start over on a new connection
            return ANCURL_PREREQFUNC_ABORT
        }
        guard let chain = presentedChain(of: transfer.easy) else { return refuse(transfer, connection, .invalidChain) }
        // The URL's port (the remote endpoint may be a proxy's).
        let port = transfer.request.url.port ?? (transfer.request.url.scheme?.lowercased() == "http" ? 80 : 443)
        let context = ServerTrustContext(host: host, port: port, certificateChain: chain)
        switch core.awaitServerTrust(of: transfer, evaluator: evaluator, context: context) {
        case .decided(.accept):
            core.trustApprovals.record(connection, evaluator: evaluator.id, host: host)
            return ANCURL_PREREQFUNC_OK
        case .decided(.reject):
            return refuse(transfer, connection, .rejectedByEvaluator)
        case .timedOut:
            return refuse(transfer, connection, .evaluatorTimedOut)
        case .cancelled:
            transfer.trustCancelled = true
            return refuse(transfer, connection, nil)
        }
    }

    /// Fails the transfer (with `reason`, or as cancelled) and has curl close the connection
    /// instead of keeping it (`CURLOPT_FORBID_REUSE` is read when the transfer ends, right after
    /// this callback; the handle is reset before its next transfer).
    private static func refuse(
        _ transfer: CurlTransfer, _ connection: CurlTrustApprovals.Connection, _ reason: ServerTrustFailureReason?
    ) -> Int32 {
        transfer.trustRejection = reason
        transfer.core.trustApprovals.forget(connection)
        _ = ancurl_easy_setopt_long(transfer.easy, ANCURLOPT_FORBID_REUSE, 1)
        return ANCURL_PREREQFUNC_ABORT
    }

    /// The certificates the server presented on this transfer's new connection, leaf first, or
    /// `nil` when curl gathered none or one is not readable.
    package static func presentedChain(of easy: OpaquePointer) -> [Certificate]? {
        let count = ancurl_easy_certinfo_count(easy)
        guard count > 0 else { return nil }
        var chain: [Certificate] = []
        for index in 0..<count {
            guard let pem = ancurl_easy_certinfo_pem(easy, index),
                  let certificate = try? Certificate(pem: String(cString: pem)) else { return nil }
            chain.append(certificate)
        }
        return chain
    }
}

extension CurlCallbacks {
    /// `CURLOPT_PREREQFUNCTION`; `userdata` is the `CurlTransfer`, unretained.
    static let prereq: ancurl_prereq_callback = { userdata, primaryIP, localIP, primaryPort, localPort in
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
        transfer.localPort = localPort // for CurlEarlyResponse
        transfer.willSendRequest()
        if !CurlEarlyResponse.guardTLSWrites(of: transfer) { return ANCURL_PREREQFUNC_ABORT }
        guard transfer.request.options.tls.serverTrustEvaluator != nil else { return ANCURL_PREREQFUNC_OK }
        let connection = CurlTrustApprovals.Connection(
            localAddress: localIP.map { String(cString: $0) } ?? "", localPort: Int(localPort),
            remoteAddress: primaryIP.map { String(cString: $0) } ?? "", remotePort: Int(primaryPort)
        )
        return CurlServerTrustGate.check(transfer, on: connection)
    }
}
#endif
