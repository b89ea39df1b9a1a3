import Foundation
import Testing

@testable import GitFormat

/// `.git/config` is read as git reads it: the values a device's commands ask for come out as
/// `git config --get` gives them, whatever the file's quoting, case and comments; a malformed
/// file is refused as git refuses it.
@Suite struct ConfigFileTests {
    private func read(_ text: String) throws -> ConfigFile {
        try ConfigFile(Array(text.utf8))
    }

    @Test func valuesAreFoundWhateverTheirQuotingCaseAndComments() throws {
        let file = try read(
            """
            # A comment
            [core]
            \trepositoryformatversion = 0
            \tBare = false ; a comment after a value
            [concord]
            \tdeviceName = "Ada's  laptop" # the name
            \tdeviceID = 0123abcd
            [remote "origin"]
            \turl = /tmp/cloud.git
            [remote "Other \\"one\\""]
            \turl = "a \\"quoted\\" \\\\ path\\twith tab"
            [Concord.Legacy]
            \tkey = old form
            [concord]
            \tdeviceID = later wins
            \tairplane
            \tspaced =   inner   spaces kept, trailing dropped\t\u{20}
            \tcontinued = first \\
            second

            """)
        #expect(file.value("core.bare") == "false")
        #expect(file.value("CORE.BARE") == "false")
        #expect(file.value("concord.devicename") == "Ada's  laptop")
        #expect(file.value("concord.deviceID") == "later wins")
        #expect(file.value("remote.origin.url") == "/tmp/cloud.git")
        #expect(file.value("remote.Origin.url") == nil, "a subsection's case matters")
        #expect(file.value("remote.Other \"one\".url") == "a \"quoted\" \\ path\twith tab")
        #expect(file.value("concord.legacy.key") == "old form")
        #expect(file.value("concord.airplane") == "true")
        #expect(file.value("concord.spaced") == "inner   spaces kept, trailing dropped")
        #expect(file.value("concord.continued") == "first second")
        #expect(file.value("concord.missing") == nil)
        #expect(!file.hasIncludes)
    }

    @Test func includesAreNoticed() throws {
        #expect(try read("[include]\n\tpath = other.config\n").hasIncludes)
        #expect(try read("[includeIf \"gitdir:/tmp/\"]\n\tpath = other.config\n").hasIncludes)
    }

    @Test(arguments: [
        "key = outside any section\n",
        "[core\n\tbare = false\n",
        "[core \"open]\n",
        "[]\n",
        "[core]\n\t2bare = true\n",
        "[core]\n\tbare : true\n",
        "[core]\n\tname = \"unclosed\n",
        "[core]\n\tname = bad \\q escape\n",
    ])
    func aMalformedFileIsRefused(text: String) {
        #expect(throws: FormatError.self) { try read(text) }
    }

    /// The same file read by git: every key Concord reads, and the tricky ones above, agree.
    @Test func gitReadsTheSameValues() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = """
            [concord]
            \tdeviceName = "Ada's  laptop" # the name
            \tnetworkTimeout = 30 ; seconds
            [remote "origin"]
            \turl = "a \\"quoted\\" \\\\ path\\twith tab"
            [concord]
            \tspaced =   inner   spaces kept\t
            \tcontinued = first \\
            second

            """
        let path = folder + "/config"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let file = try read(text)
        for key in ["concord.deviceName", "concord.networkTimeout", "remote.origin.url", "concord.spaced", "concord.continued"] {
            let git = Process()
            git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            git.arguments = ["config", "--file", path, "--get", key]
            let output = Pipe()
            git.standardOutput = output
            try git.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            git.waitUntilExit()
            #expect(git.terminationStatus == 0, "git config --get \(key)")
            #expect(file.value(key).map { $0 + "\n" } == String(decoding: data, as: UTF8.self), "\(key)")
        }
    }
}
