import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `concord ui`: finds the container, then becomes `concord-ui` (same process) serving it.
@Suite struct UICommandTests {
    /// A port nobody listens on now.
    private func freePort() throws -> Int {
        let server = try SilentServer()
        return server.port
    }

    @Test func itBecomesTheResolverPagesServerOnTheGivenPort() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "iPhone"])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "hello\n")
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["ui", "--no-open", "--port", "\(port)"]
        process.currentDirectoryURL = URL(fileURLWithPath: "\(cli.folder)/a")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += chunk
        }
        let line = String(decoding: printed, as: UTF8.self)
        #expect(line.firstMatch(of: /^Concord resolver for iPhone at http:\/\/127\.0\.0\.1:(\d+)\/\?token=[0-9a-f]{64}\n/)?.1 == "\(port)"[...], "\(line)")
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/exe")
        #expect(executable.hasSuffix("/concord-ui"), "the process started as concord is now concord-ui: \(executable)")
    }

    @Test func outsideAContainerOrWithABadPortItSaysSoInOneLine() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let outside = try cli.run(["ui", "--no-open"])
        #expect(outside.status == 1 && outside.stderr.hasSuffix(" is not a Concord container (run 'concord init' or 'concord clone' first)\n"), "\(outside)")
        try cli.ok(["init", "a", "--device", "iPhone"])
        let badPort = try cli.run(["-C", "a", "ui", "--port", "70000"])
        #expect(badPort.status == 2 && badPort.stderr.contains("--port takes a number from 1 to 65535"), "\(badPort)")
    }
}
