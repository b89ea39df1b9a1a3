import Foundation

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
