import Foundation

/// `/auth-redirect/USER/PASS?url=U[&status=S]`: a redirect behind HTTP Basic authentication.
extension Connection {
    /// Reads the whole body either way; answers 401 with a Basic challenge unless the request
    /// carries USER:PASS, else redirects to U (302 unless S is a 3xx code), so a client's answered
    /// credential can be watched on the hop that follows.
    func serveAuthRedirect(user rawUser: String, password rawPassword: String) throws {
        let expected = "Basic " + Data("\(RequestHead.percentDecode(rawUser)):\(RequestHead.percentDecode(rawPassword))".utf8).base64EncodedString()
        try readBody { _ in }
        guard request.header("Authorization")?.trimmingCharacters(in: .whitespaces) == expected else {
            return try respondJSON(401, ["authenticated": false], headers: [Self.basicChallenge])
        }
        guard let destination = request.query("url"), !destination.isEmpty else {
            return try respondText(400, "missing url parameter\n")
        }
        let requested = request.queryInt("status") ?? 302
        let status = (300...399).contains(requested) ? requested : 302
        try respond(status, [("Location", destination), ("Content-Type", "text/plain; charset=utf-8")], text: "redirecting to \(destination)\n")
    }
}
