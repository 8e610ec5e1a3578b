/// Maps a request path to its route handler. Routes are method-agnostic.
enum Router {
    /// Dispatches the connection's current request.
    static func route(_ connection: Connection) throws {
        let segments = connection.request.path.dropFirst()
            .split(separator: "/", omittingEmptySubsequences: false)
            .map(String.init)
        let arguments = Array(segments.dropFirst())
        switch (segments.first ?? "", arguments.count) {
        case ("bytes", 1): try connection.serveBytes(length: arguments[0])
        // `/bytes/N/NAME`, `/stream/N/NAME`, `/drip/NAME`: the same bodies, with a file name at the end of the path.
        case ("bytes", 2): try connection.serveBytes(length: arguments[0])
        case ("stream", 2): try connection.serveStream(length: arguments[0])
        case ("drip", 1): try connection.serveDrip()
        case ("versioned", 1): try connection.serveVersioned(length: arguments[0])
        case ("resume", 1): try connection.serveResume(length: arguments[0])
        case ("stream", 1): try connection.serveStream(length: arguments[0])
        case ("drip", 0): try connection.serveDrip()
        case ("delay", 1): try connection.serveDelay(arguments[0])
        case ("drop", 0): try connection.serveDrop()
        case ("gzip", 1): try connection.serveGzip(length: arguments[0])
        case ("status", 1): try connection.serveStatus(arguments[0])
        case ("echo", _): try connection.serveEcho()
        case ("upload", 0): try connection.serveUpload()
        case ("multipart", 0): try connection.serveMultipart()
        case ("redirect", 1): try connection.serveRedirect(hops: arguments[0])
        case ("redirect-to", 0): try connection.serveRedirectTo()
        case ("redirect-loop", 0): try connection.serveRedirectLoop()
        case ("basic-auth", 2): try connection.serveBasicAuth(user: arguments[0], password: arguments[1])
        case ("json", 0): try connection.serveJSON()
        case ("text", 0): try connection.serveText()
        case ("response-headers", 0): try connection.serveResponseHeaders()
        case ("continue", 0): try connection.serveContinue()
        case ("fault", 1): try connection.serveFault(arguments[0])
        case ("reply", 0): try connection.serveReply()
        case ("multipart-headers", 0): try connection.serveMultipartHeaders()
        case ("auth-echo", 2): try connection.serveAuthEcho(user: arguments[0], password: arguments[1])
        case ("pipeline", _): try connection.servePipeline(arguments)
        case ("sse", 0): try connection.serveServerSentEvents()
        case ("sse-once", 0): try connection.serveEventOnce()
        case ("ndjson", 1): try connection.serveJSONLines(count: arguments[0])
        case ("cache", 1): try connection.serveCache(name: arguments[0])
        default: try connection.respondText(404, "not found")
        }
    }
}
