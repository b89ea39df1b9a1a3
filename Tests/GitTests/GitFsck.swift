import Foundation
import Git

/// The exit status of `git fsck --no-dangling` on the repository at `path`; with `strict`, also
/// git's checks of each tree's order, names and modes (`--strict`).
func gitFsck(_ path: String, strict: Bool = true) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "-C", path, "fsck"] + (strict ? ["--strict"] : []) + ["--no-dangling"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

/// The lines `git verify-pack -v` prints for each pack of the repository at `path`: one per
/// entry (seven fields for a delta: its depth and base last), then the counts of each chain length.
func gitVerifyPack(_ path: String) throws -> [Substring] {
    var lines: [Substring] = []
    for pack in try FileManager.default.contentsOfDirectory(atPath: path + "/objects/pack") where pack.hasSuffix(".idx") {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", path, "verify-pack", "-v", "objects/pack/" + pack]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path + "/objects/pack/" + pack]) }
        lines += text.split(separator: "\n")
    }
    return lines
}

/// Runs git in `repository`; its standard output.
func git(_ arguments: [String], in repository: String, input: Data? = nil) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "-C", repository] + arguments
    let output = Pipe(), standardInput = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    if input != nil { process.standardInput = standardInput }
    try process.run()
    if let input {
        standardInput.fileHandleForWriting.write(input)
        try standardInput.fileHandleForWriting.close()
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw GitError(message: "git \(arguments.joined(separator: " ")) failed", function: "git") }
    return data
}
