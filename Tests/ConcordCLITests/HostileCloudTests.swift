import Foundation
import Testing

/// A cloud controlled by an attacker (anyone who can push to it) must never make a device write
/// outside its container or into `.git`, crash it, or jam it. Each attack is a commit crafted
/// with git plumbing and pushed to the cloud's `main`.
@Suite struct HostileCloudTests {
    /// The attacks on names and shapes, each refused whole at the next sync or clone.
    enum Attack: String, CaseIterable, Sendable {
        case dotDotFolder, dotDotInOneName, absolutePathInOneName, dotGitFolderWithHook, dotGitInOneName
        case upperCaseDotGit, hfsDisguisedDotGit, ntfsDisguisedDotGit, ntfsShortName
        case symbolicLinkOut, submoduleLink, overlongName, newlineInName, escapeInName, temporaryFileName
        case conflictRecordsAsAFile, conflictRecordAsAFolder, duplicateEntries, fileAndFolderOfOneName, oddMode, oversizedBlob
        case combiningMarkAfterSlash
    }

    struct Device {
        let cli: CLI
        let cloud: HostileCloud
        let beforeAttack: String
    }

    /// A cloud with one document, device `a` that made it and device `b` that cloned it.
    func twoDevices() throws -> Device {
        let cli = try CLI()
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "hello\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        let cloud = HostileCloud(path: "\(cli.folder)/cloud.git")
        return Device(cli: cli, cloud: cloud, beforeAttack: try cloud.main())
    }

    /// Pushes `attack` to the cloud; returns the environment the victim runs with.
    func push(_ attack: Attack, to cloud: HostileCloud) throws -> [String: String] {
        let pwned = try cloud.blob("PWNED\n")
        let pwnedFolder = try cloud.tree([.init("100644", "PWNED", pwned)])
        switch attack {
        case .dotDotFolder:
            try cloud.push(adding: [.init("40000", "..", pwnedFolder)])
        case .dotDotInOneName:
            try cloud.push(adding: [.init("100644", "docs/../../PWNED", pwned)])
        case .absolutePathInOneName:
            try cloud.push(adding: [.init("100644", "/tmp/PWNED", pwned)])
        case .dotGitFolderWithHook:
            let hook = try cloud.blob("#!/bin/sh\ntouch PWNED\n")
            let hooks = try cloud.tree([.init("100755", "post-checkout", hook)])
            try cloud.push(adding: [.init("40000", ".git", cloud.tree([.init("40000", "hooks", hooks), .init("100644", "PWNED", pwned)]))])
        case .dotGitInOneName:
            try cloud.push(adding: [.init("100644", ".git/PWNED", pwned)])
        case .upperCaseDotGit:
            try cloud.push(adding: [.init("40000", ".GIT", pwnedFolder)])
        case .hfsDisguisedDotGit:
            try cloud.push(adding: [.init("40000", ".g\u{200C}it", pwnedFolder)])
        case .ntfsDisguisedDotGit:
            try cloud.push(adding: [.init("40000", ".git. ", pwnedFolder)])
        case .ntfsShortName:
            try cloud.push(adding: [.init("40000", "GIT~1", pwnedFolder)])
        case .symbolicLinkOut:
            try cloud.push(adding: [.init("120000", "outside", cloud.blob("/tmp"))])
        case .submoduleLink:
            try cloud.push(adding: [.init("160000", "module", cloud.main())])
        case .overlongName:
            try cloud.push(adding: [.init("100644", String(repeating: "n", count: 300), pwned)])
        case .newlineInName:
            try cloud.push(adding: [.init("100644", "fake\nupdated  PWNED", pwned)])
        case .escapeInName:
            try cloud.push(adding: [.init("100644", "title\u{1B}]0;PWNED\u{07}", pwned)])
        case .temporaryFileName:
            try cloud.push(adding: [.init("40000", "docs", cloud.tree([.init("100644", ".concord-tmp-1-2", pwned)]))])
        case .conflictRecordsAsAFile:
            let concord = try cloud.entries(of: "main:.concord") + [.init("100644", "conflicts", pwned)]
            try cloud.push(adding: [.init("40000", ".concord", cloud.tree(concord))])
        case .conflictRecordAsAFolder:
            let records = try cloud.tree([.init("40000", "note.txt", pwnedFolder)])
            let concord = try cloud.entries(of: "main:.concord") + [.init("40000", "conflicts", records)]
            try cloud.push(adding: [.init("40000", ".concord", cloud.tree(concord))])
        case .duplicateEntries:
            let twice = try cloud.tree([.init("100644", "PWNED", pwned), .init("100644", "PWNED", cloud.blob("other\n"))], sorted: false)
            try cloud.push(adding: [.init("40000", "twice", twice)])
        case .fileAndFolderOfOneName:
            // git's fsck calls these duplicate entries: a checkout could write only one of them.
            let clash = try cloud.tree([.init("100644", "todo", pwned), .init("100644", "todo.md", pwned), .init("40000", "todo", pwnedFolder)])
            try cloud.push(adding: [.init("40000", "notes", clash)])
        case .oddMode:
            try cloud.push(adding: [.init("100666", "odd", pwned)])
        case .combiningMarkAfterSlash:
            // `docs/` then `\u{301}PWNED`: one character for Swift, which read the path as one name
            // (an integration dropped the file); two names for git.
            try cloud.push(adding: [.init("40000", "docs", cloud.tree([.init("100644", "\u{301}PWNED", pwned)]))])
        case .oversizedBlob:
            try cloud.push(adding: [.init("100644", "zeros.bin", cloud.blob(Data(count: 4096)))])
            return ["CONCORD_MAX_OBJECT_SIZE": "1k"]
        }
        return [:]
    }

    /// Every file and folder below `folder`, relative to it, leaving out git's object store.
    func listing(_ folder: String) -> Set<String> {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var result = Set<String>()
        while let path = enumerator?.nextObject() as? String {
            if path.contains("objects/") || path.hasSuffix("objects") { continue }
            result.insert(path)
        }
        return result
    }

    @Test(arguments: Attack.allCases)
    func aHostileCommitIsRefusedWholeAndTheDeviceKeepsWorking(_ attack: Attack) throws {
        let device = try twoDevices()
        let cli = device.cli, cloud = device.cloud
        defer { cli.remove() }
        let main = try cli.git(["rev-parse", "main"], in: "b")
        let outside = listing(cli.folder).filter { !$0.hasPrefix("cloud.git") && !$0.hasPrefix("b/.git") }
        let gitFolder = listing("\(cli.folder)/b/.git").filter { !$0.hasPrefix("logs") }
        let environment = try push(attack, to: cloud)
        let hostile = try cloud.main()

        let sync = try cli.run(["-C", "b", "sync"], environment: environment)
        #expect(sync.status == 1, "\(attack): \(sync.stdout) \(sync.stderr)")
        let line = sync.stderr.trimmingCharacters(in: .newlines)
        #expect(!line.contains("\n") && !line.contains("\u{1B}"), "one line, no raw control character: \(line.debugDescription)")
        #expect(line.contains("refused") && line.contains(String(hostile.prefix(7))), "\(attack): \(line)")
        #expect(try cli.git(["rev-parse", "main"], in: "b") == main)
        #expect(listing(cli.folder).filter { !$0.hasPrefix("cloud.git") && !$0.hasPrefix("b/.git") } == outside)
        #expect(listing("\(cli.folder)/b/.git").filter { !$0.hasPrefix("logs") && !$0.hasPrefix("concord") } == gitFolder.filter { !$0.hasPrefix("concord") })
        #expect(try cli.run(["-C", "b", "sync"], environment: environment).status == 1, "refused again, not taken on a second try")

        let clone = try cli.run(["clone", "cloud.git", "c"], environment: environment)
        #expect(clone.status == 1 && clone.stderr.contains("refused"), "\(attack): \(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/c"))
        #expect(listing(cli.folder).filter { !$0.hasPrefix("cloud.git") && !$0.hasPrefix("b/.git") } == outside)

        try cli.ok(["-C", "b", "save", "note.txt"], input: "edited while the cloud is hostile\n")
        #expect(try cli.git(["fsck", "--no-dangling"], in: "b").isEmpty)
        try cloud.setMain(device.beforeAttack)
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(try cli.ok(["-C", "a", "show", "note.txt"]) == "edited while the cloud is hostile\n")
        #expect(try cli.tree("a") == cli.tree("b"))
    }
}

extension HostileCloudTests {
    /// A plain git commit (no Concord trailers) dated 10^16 seconds: every device takes it and
    /// goes on saving, listing and resolving; nothing traps.
    @Test func aCommitDatedInTheFarFutureCrashesNothing() throws {
        let device = try twoDevices()
        let cli = device.cli, cloud = device.cloud
        defer { cli.remove() }
        try cloud.push(adding: [.init("100644", "note.txt", cloud.blob("from plain git\n"))], time: "10000000000000000", message: "plain\n")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "b", "save", "other.txt"], input: "after\n")
        for arguments in [["versions", "note.txt", "--json"], ["versions", "note.txt", "--all", "--json"], ["log", "note.txt"], ["ls"]] {
            try cli.ok(["-C", "b"] + arguments)
        }
        let versions = try cli.json(["-C", "b", "versions", "note.txt", "--json"])
        #expect((versions.first?["modified"] as? String)?.hasPrefix("9999-") == true, "\(versions)")
        try cli.ok(["-C", "a", "save", "note.txt"], input: "a's edit\n")
        try cli.ok(["-C", "b", "save", "note.txt"], input: "b's edit\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "b", "resolve", "note.txt", "--latest"])
        #expect(try cli.git(["fsck", "--no-dangling"], in: "b").isEmpty)
    }

    /// One commit carrying the clock 9e18 (or a wrapped counter) neither traps nor carries every
    /// later version's clock with it: the next save's clock is the device's own time.
    @Test func anAbsurdClockDoesNotPoisonLaterVersions() throws {
        let device = try twoDevices()
        let cli = device.cli, cloud = device.cloud
        defer { cli.remove() }
        let message = "Save note.txt\n\nConcord-Document: note.txt\nConcord-Device: mallory\nConcord-Clock: 9000000000000000000.4294967295\n"
        try cloud.push(adding: [.init("100644", "note.txt", cloud.blob("poisoned\n"))], message: message)
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "b", "save", "note.txt"], input: "after the poison\n")
        let current = try cli.json(["-C", "b", "versions", "note.txt", "--json"]).first
        let clock = (current?["clock"] as? String).flatMap { Double($0) } ?? .infinity
        #expect(abs(clock / 1000 - Date().timeIntervalSince1970) < 3600, "the new version's clock follows the device's time: \(clock)")
    }
}

extension HostileCloudTests {
    /// A conflict record naming a commit that does not exist, a blob, another document's
    /// version, and a record for a document that never existed: each such entry is left out with
    /// one warning; versions, resolve and resolve --all work, and resolving clears the records.
    @Test func brokenConflictRecordsNeverBlockVersionsOrResolve() throws {
        let device = try twoDevices()
        let cli = device.cli, cloud = device.cloud
        defer { cli.remove() }
        try cli.ok(["-C", "a", "save", "other.txt"], input: "other\n")
        try cli.ok(["-C", "a", "sync"])
        let otherVersion = try cli.git(["rev-parse", "main"], in: "a")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "a's edit\n")
        try cli.ok(["-C", "b", "save", "note.txt"], input: "b's edit\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        let record = try cloud.git(["show", "main:.concord/conflicts/note.txt"])
        let blob = try cloud.blob("not a commit\n")
        let bogus = record + "\n" + ["1234567890123456789012345678901234567890", blob, otherVersion].joined(separator: "\n") + "\n"
        let records =
            try cloud.entries(of: "main:.concord/conflicts").filter { $0.name != Array("note.txt".utf8) } + [
                .init("100644", "note.txt", cloud.blob(bogus)),
                .init("100644", "ghost.txt", cloud.blob("abcdefabcdefabcdefabcdefabcdefabcdefabcd\n")),
            ]
        let concord = try cloud.entries(of: "main:.concord").filter { $0.name != Array("conflicts".utf8) } + [.init("40000", "conflicts", cloud.tree(records))]
        try cloud.push(adding: [.init("40000", ".concord", cloud.tree(concord))])
        try cli.ok(["-C", "b", "sync"])

        let versions = try cli.run(["-C", "b", "versions", "note.txt", "--json"])
        #expect(versions.status == 0, "\(versions.stderr)")
        let listed = try JSONSerialization.jsonObject(with: Data(versions.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(listed.count == 2, "the current version and the real conflict version only: \(listed)")
        let warnings = versions.stderr.split(separator: "\n")
        #expect(warnings.count == 3 && warnings.allSatisfy { $0.hasPrefix("concord: warning: ignored") }, "\(versions.stderr)")
        #expect(try cli.run(["-C", "b", "versions", "ghost.txt"]).stderr.contains("names no version"))

        try cli.ok(["-C", "b", "resolve", "--all", "--latest"])
        #expect(try cli.json(["-C", "b", "conflicts", "--json"]).isEmpty)
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).isEmpty)
        #expect(try cli.tree("a") == cli.tree("b"))
        #expect(try cli.git(["fsck", "--no-dangling"], in: "b").isEmpty)
    }
}

extension HostileCloudTests {
    /// A device name holding terminal escapes and a newline is printed escaped by every report:
    /// it can neither retitle the terminal nor fake an output line.
    @Test func aDeviceNameFromTheCloudIsPrintedEscaped() throws {
        let device = try twoDevices()
        let cli = device.cli, cloud = device.cloud
        defer { cli.remove() }
        try cloud.push(adding: [.init("100644", "note.txt", cloud.blob("retitled\n"))], author: "M\u{1B}]0;PWNED\u{07}\rSaved fake.txt")
        try cli.ok(["-C", "b", "sync"])
        for arguments in [["versions", "note.txt"], ["versions", "note.txt", "--all"], ["log", "note.txt"]] {
            let output = try cli.ok(["-C", "b"] + arguments)
            #expect(!output.contains("\u{1B}") && !output.contains("\u{07}"), "\(arguments): \(output.debugDescription)")
            #expect(output.contains("M\\u{1B}]0;PWNED\\u{7}\\rSaved fake.txt"), "\(arguments): \(output)")
        }
    }
}
