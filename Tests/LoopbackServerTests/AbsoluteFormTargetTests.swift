import Foundation
import Testing
@testable import LoopbackServer

/// Only a request target that starts with `http://` or `https://` is absolute-form; a `://` in the
/// query (a redirect destination, for example) belongs to the query.
@Suite struct AbsoluteFormTargetTests {
    @Test func schemeInTheQueryIsNotAbsoluteForm() {
        let split = RequestHead.splitTarget("/redirect-to?url=http://127.0.0.1:9/inner?x=1")
        #expect(split.path == "/redirect-to")
        #expect(split.items.first?.0 == "url")
        #expect(split.items.first?.1 == "http://127.0.0.1:9/inner?x=1")
        #expect(RequestHead.splitTarget("/a://b").path == "/a://b")
    }

    @Test func realAbsoluteFormStillDropsSchemeAndAuthority() {
        #expect(RequestHead.splitTarget("http://127.0.0.1:8080/bytes/3?seed=1").path == "/bytes/3")
        #expect(RequestHead.splitTarget("HTTPS://example.test?q=1").path == "/")
        #expect(RequestHead.splitTarget("https://example.test?q=1").rawQuery == "q=1")
        #expect(RequestHead.splitTarget("http://example.test").path == "/")
    }

    @Test func redirectToAnUnencodedAbsoluteURLIsServedAsARedirect() throws {
        try withServer { server in
            let client = try TestClient(port: server.port)
            let hop = try client.get("/redirect-to?url=http://127.0.0.1:9/elsewhere&status=307")
            #expect(hop.status == 307)
            #expect(hop.header("Location") == "http://127.0.0.1:9/elsewhere")
            #expect(server.requests.last?.path == "/redirect-to")
        }
    }
}
