import Foundation
import Testing

/// A sync fetches what the cloud gained in one request to upload-pack, however many versions the
/// device saved offline, against lighttpd + `git http-backend` on 127.0.0.1 (device B reaches it
/// through a ``ConnectionProxy``, which counts the bytes it receives and names its connections in
/// the server's log).
@Suite struct FetchRoundTests {
    /// B saved 300 versions offline, more than the 256 commits libgit2's own fetch names before
    /// giving up, and A sent one edit. B's sync asks upload-pack once and receives about that
    /// edit, not the 300 KB history of documents that do not compress. Seen failing with no
    /// commit named as this side's: the history came again (over 300 KB).
    @Test func aSyncAfterManyOfflineSavesFetchesWhatTheCloudGainedInOneRequest() throws {
        let (cli, server) = try CloudTesting.httpsFixture()
        defer { server.stop(); cli.remove() }
        let proxy = try ConnectionProxy(to: server.port)
        defer { proxy.stop() }
        let url = server.url("cloud.git", userInfo: "alice:s3cret-pass")
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        var generator = SystemRandomNumberGenerator()
        for number in 0..<30 {
            let bytes = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(bytes).write(to: URL(fileURLWithPath: "\(cli.folder)/a/photo\(number).bin"))
        }
        try cli.ok(["-C", "a", "save", "--all"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", server.url("cloud.git", userInfo: "alice:s3cret-pass", port: proxy.port), "b", "--device", "B"])
        for number in 1...300 {
            try cli.ok(["-C", "b", "save", "diary.txt"], input: "entry \(number)\n")
        }
        try cli.ok(["-C", "a", "save", "shopping.txt"], input: "bread\n")
        try cli.ok(["-C", "a", "sync"])

        let before = proxy.received
        try cli.ok(["-C", "b", "sync"])
        let received = proxy.received - before
        #expect(cli.file("b/shopping.txt") == "bread\n")
        #expect(received < 60_000, "the sync received \(received) bytes")

        // B's requests, as the server logged them: its clone's and its sync's (the last, a push).
        let ports = proxy.serverSidePorts
        var requests: [HTTPSServer.Request] = []
        let logged = eventually(20) {
            requests = server.accessLog().filter { ports.contains($0.port) }
            return requests.contains { $0.line.hasPrefix("POST") && $0.line.contains("git-receive-pack") }
        }
        #expect(logged, "\(requests.map(\.line))")
        let fetches = requests.filter { $0.line.hasPrefix("POST") && $0.line.contains("git-upload-pack") }
        #expect(fetches.count == 2, "upload-pack requests of the clone and the sync: \(fetches.map(\.line))")
    }

    /// A server whose upload-pack answers a fetch off the protocol (a side-band packet of band 5),
    /// and one that refuses it (`ERR`): a sync stops in one line saying so and changes nothing
    /// (no reference, no pack), and a clone leaves no folder. Behind them, a CGI program that
    /// advertises a `main` the device does not hold.
    @Test func aMalformedOrRefusedFetchAnswerIsOneLineAndChangesNothing() throws {
        var cli = try CLI()
        defer { cli.remove() }
        let (malformed, refusing) = try Self.writeAnswerScripts(in: cli.folder)
        let server = try HTTPSServer(in: "\(cli.folder)/https", users: [:], scripts: ["/malformed": malformed, "/refusing": refusing])
        defer { server.stop() }
        cli.environment = CloudTesting.environment(home: "\(cli.folder)/home", ["SSL_CERT_FILE": server.authority])
        try cli.ok(["init", "a", "--device", "A"])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "mine\n")
        let main = { try runTool("/usr/bin/git", ["-C", "\(cli.folder)/a", "rev-parse", "main"]) }
        let mainBefore = try main()
        let packs = { try FileManager.default.contentsOfDirectory(atPath: "\(cli.folder)/a/.git/objects/pack").sorted() }
        let packsBefore = try packs()
        for (path, detail) in [
            ("malformed", "the remote's answer is malformed: upload-pack: a side-band packet has band 5, not 1, 2 or 3"),
            ("refusing", "the remote refused the fetch: upload-pack: not our ref"),
        ] {
            let url = "https://localhost:\(server.port)/\(path)/cloud.git"
            _ = try? runTool("/usr/bin/git", ["-C", "\(cli.folder)/a", "remote", "remove", "origin"])
            try runTool("/usr/bin/git", ["-C", "\(cli.folder)/a", "remote", "add", "origin", url])
            let sync = try cli.run(["-C", "a", "sync"])
            #expect(sync.status != 0 && sync.stdout.isEmpty, "\(sync.stdout)")
            #expect(sync.stderr.split(separator: "\n").count == 1 && sync.stderr.contains(detail), "\(sync.stderr)")
            #expect(try main() == mainBefore)
            #expect(cli.file("a/note.txt") == "mine\n")
            #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/a/.git/refs/remotes/origin/main"))
            #expect(try packs() == packsBefore)
            let clone = try cli.run(["clone", url, "b-\(path)", "--device", "B"])
            #expect(clone.status != 0 && clone.stderr.split(separator: "\n").count == 1 && clone.stderr.contains(detail), "\(clone.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b-\(path)"))
        }
    }

    /// Two CGI programs that advertise a `main` of their own over smart http, then answer
    /// upload-pack's request with a side-band packet of band 5, or with `ERR`.
    static func writeAnswerScripts(in folder: String) throws -> (malformed: String, refusing: String) {
        func script(_ answer: String) -> String {
            """
            #!/usr/bin/python3
            import os, sys
            out = sys.stdout.buffer
            def line(text): return b"%04x" % (len(text) + 4) + text
            if os.environ.get("REQUEST_METHOD") == "GET":
                out.write(b"Content-Type: application/x-git-upload-pack-advertisement\\r\\n\\r\\n")
                out.write(line(b"# service=git-upload-pack\\n") + b"0000")
                out.write(line(b"%040x HEAD\\0side-band-64k ofs-delta\\n" % 7) + line(b"%040x refs/heads/main\\n" % 7) + b"0000")
            else:
                sys.stdin.buffer.read(int(os.environ.get("CONTENT_LENGTH") or 0))
                out.write(b"Content-Type: application/x-git-upload-pack-result\\r\\n\\r\\n")
                out.write(\(answer))
            out.flush()
            """
        }
        let malformed = "\(folder)/malformed.py", refusing = "\(folder)/refusing.py"
        try script(#"line(b"NAK\n") + line(b"\x05junk")"#).write(toFile: malformed, atomically: true, encoding: .utf8)
        try script(#"line(b"ERR upload-pack: not our ref %040x\n" % 7)"#).write(toFile: refusing, atomically: true, encoding: .utf8)
        for file in [malformed, refusing] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file)
        }
        return (malformed, refusing)
    }
}
