import Foundation
import Testing

/// Issue 41's start like git's: a command that reads only what Concord reads itself
/// (references, configuration, objects) never starts libgit2, whose start looks up the system's
/// CA bundle (Debian's libgit2 with mbedTLS parses `/etc/ssl/certs/ca-certificates.crt` in
/// `git_libgit2_init`; `concord` defers that parse to the first TLS connection, see
/// HTTPSCloudTests). Seen with strace: the bundle's path is looked up only by a command that
/// started libgit2 (a save, here, as a control). Nor do they
/// load it: `concord` is not linked with libgit2, which is loaded on first use with the 19
/// libraries Debian's build needs (CGit2Loader; seen failing, every command loading it, when
/// linked).
@Suite struct StartTests {
    @Test func listingAndReadingCommandsNeverStartLibgit2() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.diverge("note.txt", base: "base\n", a: "from a\n", b: "from b\n")
        try cli.ok(["-C", "a", "sync"])
        func startsLibgit2(_ arguments: [String]) throws -> (loads: Bool, starts: Bool) {
            let trace = "\(cli.folder)/trace-\(UUID().uuidString.prefix(8)).txt"
            let strace = Process()
            strace.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
            strace.arguments = ["-f", "-e", "trace=openat,open,stat,newfstatat,statx,access", "-o", trace, CLI.binary] + arguments
            strace.currentDirectoryURL = URL(fileURLWithPath: cli.folder)
            strace.standardOutput = FileHandle.nullDevice
            strace.standardError = FileHandle.nullDevice
            try strace.run()
            strace.waitUntilExit()
            #expect(strace.terminationStatus == 0, "concord \(arguments.joined(separator: " "))")
            let text = try String(contentsOfFile: trace, encoding: .utf8)
            return (text.contains("libgit2.so"), text.contains("ca-certificates"))
        }
        for arguments in [
            ["conflicts"], ["conflicts", "--json"], ["ls"], ["ls", "--json"], ["status"], ["airplane"], ["versions", "note.txt"], ["show", "note.txt"], ["log", "note.txt"],
        ] {
            let seen = try startsLibgit2(["-C", "a"] + arguments)
            #expect(!seen.starts, "concord \(arguments.joined(separator: " ")) started libgit2")
            #expect(!seen.loads, "concord \(arguments.joined(separator: " ")) loaded libgit2")
        }
        #expect(try !startsLibgit2(["--version"]).loads, "concord --version loaded libgit2")
        let control = try startsLibgit2(["-C", "a", "save", "other.txt", "--file", "/dev/null"])
        #expect(control.loads && control.starts, "the control: a save loads and starts libgit2")
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).count == 1)
    }
}
