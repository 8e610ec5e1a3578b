import Testing
@testable import AnfetchKit

@Suite("Anfetch argument parsing")
struct AnfetchArgumentTests {
    private func options(_ arguments: [String]) throws -> FetchOptions {
        guard case .fetch(let options) = try ArgumentParser.parse(arguments) else {
            Issue.record("\(arguments) did not parse as a fetch")
            return FetchOptions()
        }
        return options
    }

    @Test func defaults() throws {
        let parsed = try options(["http://a/x"])
        #expect(parsed.urls == ["http://a/x"])
        #expect(parsed.outputDirectory == ".")
        #expect(parsed.jobs == 4)
        #expect(parsed.retries == 3)
        #expect(parsed.timeout == nil)
        #expect(!parsed.resume && !parsed.quiet && !parsed.json && !parsed.force)
        #expect(parsed.pins.isEmpty && parsed.headers.isEmpty)
    }

    @Test func everyOptionInEveryForm() throws {
        let pin = "sha256//r8udi/Mxd6pLO7y7hZyUMWq8YnFnIWXCqeHsTDRqy8c="
        let parsed = try options([
            "-o", "out", "http://a/1", "-j", "2", "--resume", "--retries=5", "--timeout", "2.5", "--quiet", "--json",
            "--pin", pin, "-H", "X-Trace: abc", "--header=Accept:  */*", "-f", "-i", "list.txt", "http://a/2",
        ])
        #expect(parsed.urls == ["http://a/1", "http://a/2"])
        #expect(parsed.outputDirectory == "out")
        #expect(parsed.jobs == 2)
        #expect(parsed.resume && parsed.quiet && parsed.json && parsed.force)
        #expect(parsed.retries == 5)
        #expect(parsed.timeout == 2.5)
        #expect(parsed.pins == [pin])
        #expect(parsed.headers == [.init(name: "X-Trace", value: "abc"), .init(name: "Accept", value: "*/*")])
        #expect(parsed.inputFiles == ["list.txt"])
        #expect(try options(["-oDIR", "-j8", "http://a"]).outputDirectory == "DIR")
        #expect(try options(["-oDIR", "-j8", "http://a"]).jobs == 8)
    }

    @Test func doubleDashEndsOptionsAndDuplicatesGo() throws {
        let parsed = try options(["http://a", "--", "--json", "http://a"])
        #expect(parsed.urls == ["http://a", "--json"])
        #expect(!parsed.json)
    }

    @Test func noURLIsUsageAndMentionsDemo() throws {
        #expect(try ArgumentParser.parse([]) == .usage)
        #expect(try ArgumentParser.parse(["-j", "3"]) == .usage)
        #expect(ArgumentParser.usage.contains("--demo"))
        #expect(try ArgumentParser.parse(["-h", "http://a"]) == .help)
        guard case .demo = try ArgumentParser.parse(["--demo"]) else { Issue.record("--demo"); return }
        guard case .fetch = try ArgumentParser.parse(["-i", "file"]) else { Issue.record("-i alone"); return }
    }

    @Test(arguments: [
        (["--frobnicate", "http://a"], "unknown option --frobnicate"),
        (["http://a", "-o"], "-o needs a value"),
        (["-j", "0", "http://a"], "-j needs a whole number from 1 to 256, not '0'"),
        (["-j", "many", "http://a"], "-j needs a whole number"),
        (["--retries", "-1", "http://a"], "--retries needs a whole number"),
        (["--timeout", "0", "http://a"], "--timeout needs a number of seconds above 0"),
        (["-H", "NoColon", "http://a"], "-H needs 'Name: value'"),
        (["-H", "Bad Name: v", "http://a"], "not a valid header name"),
        (["--pin", "sha256//short", "http://a"], "--pin needs sha256//"),
    ])
    func badCommandLinesSayWhatIsWrong(arguments: [String], message: String) {
        #expect {
            _ = try ArgumentParser.parse(arguments)
        } throws: { error in
            (error as? UsageError)?.message.contains(message) == true
        }
    }

    @Test func urlListFilesSkipCommentsAndBlankLines() {
        let text = """
            # mirrors
            http://a/1
              http://a/2   # the second

            #http://a/3
            http://a/4#fragment
            """
        #expect(URLList.parse(text) == ["http://a/1", "http://a/2", "http://a/4#fragment"])
    }

    @Test func downloadableURLsAreHTTPWithAHost() {
        #expect(URLList.downloadableURL("https://example.com/a.bin") != nil)
        #expect(URLList.downloadableURL("ftp://example.com/a") == nil)
        #expect(URLList.downloadableURL("example.com/a") == nil)
        #expect(URLList.downloadableURL("http:///nohost") == nil)
        #expect(URLList.whyInvalid("ftp://example.com/a") == "invalid URL (ftp: is not http or https)")
        #expect(URLList.whyInvalid("example.com") == "invalid URL (no http:// or https://)")
        #expect(URLList.redacted("http://user:secret@host/x") == "http://user:***@host/x")
    }
}
