import Foundation
import Testing

/// The command line as `concord`'s own parser reads it (`CommandArguments`), through the binary:
/// the forms of options a person types, and bad usage told with the command's usage line, exit 2,
/// nothing run.
@Suite struct ArgumentParsingTests {
    /// A container `dev` with one document `a.txt` ("a").
    private func container() throws -> CLI {
        let cli = try CLI()
        try cli.ok(["init", "dev", "--device", "D", "--remote", "cloud.git"])
        try cli.ok(["-C", "dev", "save", "a.txt"], input: "a\n")
        return cli
    }

    @Test func optionsTakeTheirValueAttachedOrAsTheNextWord() throws {
        let cli = try container()
        defer { cli.remove() }
        try Data("from a file\n".utf8).write(to: URL(fileURLWithPath: "\(cli.folder)/src.txt"))
        try cli.ok(["-Cdev", "save", "b.txt", "--file=../src.txt"])
        #expect(try cli.ok(["show", "-C", "dev", "b.txt"]) == "from a file\n")
        try cli.ok(["save", "c.txt", "-Cdev", "--file", "../src.txt"])
        #expect(try cli.ok(["-C", "dev", "show", "c.txt"]) == "from a file\n")
        let versions = try JSONSerialization.jsonObject(with: Data(try cli.ok(["-C", "dev", "versions", "a.txt", "--json"]).utf8)) as? [[String: Any]]
        let id = try #require(versions?.first?["id"] as? String)
        #expect(try cli.ok(["-C", "dev", "show", "a.txt", "--version", String(id.prefix(7))]) == "a\n")
        #expect(try cli.ok(["-C", "dev", "show", "a.txt", "--version=\(id)"]) == "a\n")
    }

    @Test func wordsAfterDoubleDashAreDocumentsEvenWhenTheyStartWithADash() throws {
        let cli = try container()
        defer { cli.remove() }
        try cli.ok(["-C", "dev", "save", "--", "-dash.txt"], input: "dash\n")
        #expect(try cli.ok(["-C", "dev", "show", "--", "-dash.txt"]) == "dash\n")
        #expect(try cli.ok(["-C", "dev", "ls"]).contains("-dash.txt"))
        let standardInput = try cli.run(["-C", "dev", "save", "e.txt", "--file", "-"], input: "from stdin\n")
        #expect(standardInput.status == 0, "\(standardInput.stderr)")
        #expect(try cli.ok(["-C", "dev", "show", "e.txt"]) == "from stdin\n")
    }

    @Test func anOptionTakingSeveralValuesTakesTheWordsUpToTheNextOption() throws {
        let cli = try container()
        defer { cli.remove() }
        try cli.ok(["-C", "dev", "packages", "--set", "*.note", "*.pages"])
        #expect(try cli.ok(["-C", "dev", "packages"]).contains("*.pages"))
        let both = try cli.run(["-C", "dev", "packages", "--set", "*.a", "*.b", "--clear"])
        #expect(both.status == 2)
        #expect(both.stderr.hasPrefix("Error: give --set PATTERN... or --clear, not both\nUsage: concord packages"))
    }

    /// Each mistake: exit 2, the error, the usage and where help is; nothing on stdout, nothing saved.
    @Test(arguments: [
        (["ls", "--bogus"], "Error: Unknown option '--bogus'\nUsage: concord ls"),
        (["watch", "--interval"], "Error: Missing value for '--interval <SECONDS>'\nHelp:  --interval <SECONDS>  Sync every SECONDS"),
        (["watch", "--interval", "--json"], "Error: Missing value for '--interval <SECONDS>'\n"),
        (["watch", "--interval", "soon"], "Error: The value 'soon' is invalid for '--interval <SECONDS>'\n"),
        (["conflicts", "--json=yes"], "Error: The flag '--json' takes no value ('yes')\n"),
        (["versions"], "Error: Missing expected argument '<document>'\nHelp:  <document>  The document's path"),
        (["conflicts", "extra"], "Error: Unexpected argument 'extra'\nUsage: concord conflicts [-C <PATH>] [--json]\n"),
        (["ls", "a", "b", "c"], "Error: 2 unexpected arguments: 'b', 'c'\n"),
        (["airplane", "sideways"], "Error: The value 'sideways' is invalid for '<mode>'. Please provide one of 'on', 'off' or 'status'.\n"),
        (["save", "a.txt", "--all"], "Error: --all saves the whole work tree: give no document and no --file\n"),
        (["-C", "dev"], "Error: Unknown option '-C'\nUsage: concord <subcommand>\n  See 'concord --help' for more information.\n"),
    ])
    func badUsageSaysWhatAndHowAndRunsNothing(arguments: [String], start: String) throws {
        let cli = try container()
        defer { cli.remove() }
        let before = try cli.tree("dev")
        let result = try cli.run(arguments.first == "-C" ? arguments : ["-C", "dev"] + arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix(start), "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasSuffix(" --help' for more information.\n"), "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        #expect(try cli.tree("dev") == before)
    }

    /// Every subcommand's help names each of its options and its usage; `help NAME` is the same
    /// text; `--version` is the version wherever it is given, except to a command with its own
    /// `--version ID` option.
    @Test func everySubcommandHasHelpAndTheVersion() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let root = try cli.ok(["--help"])
        #expect(root.hasPrefix("OVERVIEW: Keep versioned documents in sync"))
        #expect(try cli.ok([]) == root)
        let names = root.components(separatedBy: "SUBCOMMANDS:\n")[1].split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("  ") && !line.hasPrefix("   ") && !line.contains("See 'concord help") ? line.split(separator: " ").first.map(String.init) : nil
        }
        #expect(names.count == 25, "\(names)")
        for name in names {
            let help = try cli.ok([name, "--help"])
            #expect(help.contains("USAGE: concord \(name)"), "\(name)")
            #expect(help.contains("  -h, --help "), "\(name)")
            #expect(try cli.ok(["help", name]) == help, "\(name)")
            #expect(try cli.ok([name, "-h"]) == help, "\(name)")
            for line in help.split(separator: "\n") where line.allSatisfy({ $0 != "\t" }) {
                #expect(line.count <= 80 || line.hasPrefix("USAGE:") || line.hasPrefix("  git "), "\(name): \(line)")
            }
            if !["show", "diff"].contains(name) {
                #expect(try cli.ok([name, "--version"]) == "0.1.0\n", "\(name)")
            }
        }
        #expect(try cli.ok(["watch", "--help"]).contains("  --peek-interval <SECONDS>\n"))
        #expect(try cli.ok(["init", "--help"]).contains("USAGE: concord init [-C <PATH>] [<path>] [--device <device>] [--remote <URL>] [--package <PATTERN> ...]\n"))
        #expect(try cli.ok(["show", "--help"]).contains("  --version <ID>          The version's id"))
    }
}
