import Foundation

/// `/auth-echo/USER/PASS`: a body-reading route behind HTTP Basic authentication.
extension Connection {
    /// Reads the whole body either way; answers 401 with a Basic challenge unless the request
    /// carries USER:PASS, else does what `/echo` does. A client that authenticates after the 401
    /// must send its body a second time.
    func serveAuthEcho(user rawUser: String, password rawPassword: String) throws {
        let expected = "Basic " + Data("\(RequestHead.percentDecode(rawUser)):\(RequestHead.percentDecode(rawPassword))".utf8).base64EncodedString()
        guard request.header("Authorization")?.trimmingCharacters(in: .whitespaces) == expected else {
            try readBody { _ in }
            return try respondJSON(401, ["authenticated": false, "bodyLength": body.length], headers: [Self.basicChallenge])
        }
        try serveEcho()
    }
}
