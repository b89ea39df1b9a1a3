import Foundation
import Testing

/// `--file` takes what a Unix tool takes: any readable file, pipe or device.
@Suite struct FileInputTests {
    @Test func fileReadsPipesDevicesAndProcessSubstitution() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        try cli.ok(["-C", "dev", "save", "empty.txt", "--file", "/dev/null"])
        #expect(try cli.ok(["-C", "dev", "show", "empty.txt"]) == "")
        try cli.ok(["-C", "dev", "save", "piped.txt", "--file", "/dev/stdin"], input: "through a pipe\n")
        #expect(try cli.ok(["-C", "dev", "show", "piped.txt"]) == "through a pipe\n")

        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = ["-c", "\"$0\" -C dev save generated.txt --file <(printf 'made by a process\\n')", CLI.binary]
        shell.currentDirectoryURL = URL(fileURLWithPath: cli.folder)
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(try cli.ok(["-C", "dev", "show", "generated.txt"]) == "made by a process\n")
    }

    @Test func aFileThatCannotBeReadSaysWhyAndChangesNothing() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        let before = try cli.tree("dev")
        let missing = try cli.run(["-C", "dev", "save", "a.txt", "--file", "no-such-file"])
        #expect(missing.status == 1 && missing.stderr.contains("no-such-file: cannot be read: No such file or directory"), "\(missing.stderr)")
        let folder = try cli.run(["-C", "dev", "save", "a.txt", "--file", "."])
        #expect(folder.status == 1 && folder.stderr.contains("is a folder"), "\(folder.stderr)")
        #expect(try cli.tree("dev") == before)
    }
}
