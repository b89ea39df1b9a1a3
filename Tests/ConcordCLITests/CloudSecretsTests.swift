import Foundation
import Testing

/// No credential given with a cloud URL is printed, or written anywhere but the 0600 store:
/// not in `.git/config`, not in a reflog (issue 13, "Secrets").
@Suite struct CloudSecretsTests {
    @Test func aPasswordInAGitURLStaysOutOfTheReflog() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--remote", "cloud.git"])
        let daemon = try GitDaemon(base: cli.folder)
        defer { daemon.stop() }
        let url = "git://someone:hunter2@127.0.0.1:\(daemon.port)/cloud.git"
        let clone = try cli.run(["clone", url, "b"])
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(!clone.stdout.contains("hunter2") && !clone.stderr.contains("hunter2"))
        #expect(CloudTesting.filesHolding("hunter2", below: "\(cli.folder)/b") == [])
        #expect(try !String(contentsOfFile: "\(cli.folder)/b/.git/logs/refs/heads/main", encoding: .utf8).contains("hunter2"))
        #expect(CloudTesting.permissions("\(cli.folder)/b/.git/concord/credentials") == 0o600)
        try cli.ok(["-C", "b", "sync"])
    }

    /// A container whose configured URL holds a password (written by an older Concord, or by
    /// hand) has it moved to the store at its next sync.
    @Test func aPasswordFoundInTheConfigurationMovesToTheStore() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try runTool("/usr/bin/git", ["init", "--quiet", "--bare", "--initial-branch=main", "\(cli.folder)/cloud.git"])
        let daemon = try GitDaemon(base: cli.folder)
        defer { daemon.stop() }
        try cli.ok(["init", "a", "--remote", daemon.url("cloud.git")])
        try cli.git(["config", "remote.origin.url", "git://someone:hunter2@127.0.0.1:\(daemon.port)/cloud.git"], in: "a")
        try cli.ok(["-C", "a", "save", "note.txt"], input: "hello\n")
        let sync = try cli.run(["-C", "a", "sync"])
        #expect(sync.status == 0 && !sync.stdout.contains("hunter2"), "\(sync.stderr)")
        #expect(try cli.git(["config", "remote.origin.url"], in: "a") == daemon.url("cloud.git"))
        #expect(try String(contentsOfFile: "\(cli.folder)/a/.git/concord/credentials", encoding: .utf8).contains("hunter2"))
    }

    @Test func aTokenGivenAsTheUserNameIsNeitherPrintedNorWritten() throws {
        let (cli, server) = try CloudTesting.httpsFixture()
        defer { server.stop(); cli.remove() }
        let result = try cli.run(["clone", server.url("cloud.git", userInfo: "ghp_T0KEN"), "b"])
        #expect(result.status == 1 && result.stderr.contains("authentication failed"), "\(result.stderr)")
        #expect(!result.stderr.contains("ghp_T0KEN") && !result.stdout.contains("ghp_T0KEN"))
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b"))
        let unreachable = try cli.run(["clone", "https://ghp_T0KEN@localhost:1/git/cloud.git", "c"])
        #expect(unreachable.status == 1 && !unreachable.stderr.contains("ghp_T0KEN"), "\(unreachable.stderr)")
    }

    @Test func aTokenInTheQueryIsKeptOnlyInTheStore() throws {
        let (cli, server) = try CloudTesting.httpsFixture()
        defer { server.stop(); cli.remove() }
        let url = server.url("cloud.git", userInfo: "alice:s3cret-pass") + "?token=q7-secret"
        let created = try cli.run(["init", "a", "--remote", url])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(!created.stdout.contains("q7-secret"))
        #expect(CloudTesting.filesHolding("q7-secret", below: "\(cli.folder)/a") == [])
        #expect(try String(contentsOfFile: "\(cli.folder)/a/.git/concord/credentials", encoding: .utf8).contains("token=q7-secret"))
        try cli.ok(["-C", "a", "save", "note.txt"], input: "hello\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", server.url("cloud.git", userInfo: "alice:s3cret-pass") + "?token=q7-secret", "b"])
        try cli.ok(["-C", "b", "sync"])
        #expect(CloudTesting.filesHolding("q7-secret", below: "\(cli.folder)/a") == [])
        #expect(CloudTesting.filesHolding("q7-secret", below: "\(cli.folder)/b") == [])
        let wrong = try cli.run(["clone", server.url("cloud.git", userInfo: "alice:nope") + "?token=q7-secret", "c"])
        #expect(wrong.status == 1 && wrong.stderr.contains("authentication failed"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("q7-secret") && !wrong.stderr.contains("nope"))
    }

    @Test func aPasswordInAnScpLikeURLIsNeitherPrintedNorWritten() throws {
        var cli = try CLI()
        defer { cli.remove() }
        cli.environment = CloudTesting.environment(home: "\(cli.folder)/home")
        let clone = try cli.run(["clone", "me:hunter2@127.0.0.1:/nowhere.git", "b"])
        #expect(clone.status == 1 && clone.stderr.contains("me@127.0.0.1:/nowhere.git"), "\(clone.stderr)")
        #expect(!clone.stderr.contains("hunter2") && clone.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b"))
        // init starts offline when its cloud is out of reach: the one warning line and the
        // container's files hold the URL without the password.
        let created = try cli.run(["init", "a", "--remote", "me:hunter2@127.0.0.1:/nowhere.git"])
        #expect(created.status == 0 && created.stderr.contains("me@127.0.0.1:/nowhere.git"), "\(created.stderr)")
        #expect(!created.stderr.contains("hunter2") && !created.stdout.contains("hunter2") && created.stderr.split(separator: "\n").count == 1)
        #expect(CloudTesting.filesHolding("hunter2", below: "\(cli.folder)/a") == [])
        let offline = try cli.run(["-C", "a", "sync"])
        #expect(offline.status == 1 && !offline.stderr.contains("hunter2"), "\(offline.stderr)")
    }

    /// The store is also a way to give a password: written by hand (0600, the URL as
    /// `.git/config` names the cloud), it serves the next sync, as docs/GUIDE.md shows.
    @Test func aStoreWrittenByHandGivesThePassword() throws {
        let (cli, server) = try CloudTesting.httpsFixture()
        defer { server.stop(); cli.remove() }
        let url = server.url("cloud.git")
        try cli.ok(["init", "a"])
        try cli.git(["remote", "add", "origin", url], in: "a")
        try cli.ok(["-C", "a", "save", "note.txt"], input: "hello\n")
        let refused = try cli.run(["-C", "a", "sync"])
        #expect(refused.status == 1 && refused.stderr.contains("authentication failed"), "\(refused.stderr)")
        let store = "\(cli.folder)/a/.git/concord/credentials"
        try Data(#"{"url": "\#(url)", "username": "alice", "password": "s3cret-pass"}"#.utf8).write(to: URL(fileURLWithPath: store))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: store)
        try cli.ok(["-C", "a", "sync"])
        #expect(CloudTesting.main(ofBare: "\(server.folder)/repos/cloud.git") == (try cli.git(["rev-parse", "main"], in: "a")))
    }

    /// A password given in a URL argument is gone from the arguments any user of the machine
    /// can read (`ps`, `/proc/PID/cmdline`) while the command runs: here a clone or an init
    /// that waits on a server that never answers. A token shorter than `***` is shown as
    /// asterisks, the whole argument (the system's copy cannot grow).
    @Test(arguments: ["clone", "init --remote", "init --remote=", "clone with a short token"])
    func aPasswordInAURLArgumentIsHiddenFromTheProcessList(_ form: String) throws {
        let cli = try CLI()
        defer { cli.remove() }
        let server = try SilentServer()
        let secret = form == "clone with a short token" ? "Zq" : "someone:Pa55-S3CRET"
        let url = "https://\(secret)@127.0.0.1:\(server.port)/cloud.git"
        let arguments =
            switch form {
            case "init --remote": ["init", "\(cli.folder)/a", "--remote", url]
            case "init --remote=": ["init", "\(cli.folder)/a", "--remote=\(url)"]
            default: ["clone", url, "\(cli.folder)/b"]
            }
        let process = try ChildProcess(
            [CLI.binary] + arguments, environment: CloudTesting.environment(home: "\(cli.folder)/home"), stdout: "/dev/null", stderr: "/dev/null")
        defer { process.kill9() }
        #expect(server.waitForConnection(within: 30), "\(form): the command reached the server")
        let shown = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.pid)/cmdline"))
        for part in secret.split(separator: ":") {
            #expect(shown.range(of: Data(part.utf8)) == nil, "\(form): \(String(decoding: shown, as: UTF8.self))")
        }
        let expected = secret == "Zq" ? String(repeating: "*", count: url.utf8.count) : "https://***@127.0.0.1:\(server.port)/cloud.git"
        #expect(String(decoding: shown, as: UTF8.self).contains(expected), "\(form): \(String(decoding: shown, as: UTF8.self))")
    }
}
