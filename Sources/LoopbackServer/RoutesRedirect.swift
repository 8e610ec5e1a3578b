/// `/redirect/N`, `/redirect-to` and `/redirect-loop`.
extension Connection {
    /// `/redirect/N[?status=S][&to=/path]`: N hops of 302 (or S ∈ 301, 302, 303, 307, 308) down to
    /// `/redirect/0`, which answers 200 `redirected`. The query is carried along every hop; with
    /// `to`, the last hop (at N = 1) goes there instead.
    func serveRedirect(hops text: String) throws {
        guard let hops = Int(text), hops >= 0 else { return try respondText(400, "invalid hop count \(text)\n") }
        if hops == 0 { return try respondText(200, "redirected") }
        let requested = request.queryInt("status") ?? 302
        let status = [301, 302, 303, 307, 308].contains(requested) ? requested : 302
        let location: String
        if hops == 1, let destination = request.query("to") {
            location = destination
        } else {
            location = "/redirect/\(hops - 1)" + (request.rawQuery.map { "?\($0)" } ?? "")
        }
        try redirect(status, to: location)
    }

    /// `/redirect-to?url=U[&status=S]`: one redirect (302 unless S is a 3xx code) to U.
    func serveRedirectTo() throws {
        guard let destination = request.query("url"), !destination.isEmpty else {
            return try respondText(400, "missing url parameter\n")
        }
        let requested = request.queryInt("status") ?? 302
        try redirect((300...399).contains(requested) ? requested : 302, to: destination)
    }

    /// `/redirect-loop`: 302 to itself, forever.
    func serveRedirectLoop() throws {
        try redirect(302, to: request.path + (request.rawQuery.map { "?\($0)" } ?? ""))
    }

    private func redirect(_ status: Int, to location: String) throws {
        try respond(status, [("Location", location), ("Content-Type", "text/plain; charset=utf-8")], text: "redirecting to \(location)\n")
    }
}
