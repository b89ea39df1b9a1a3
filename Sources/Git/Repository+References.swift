internal import CGit2
public import GitFormat
internal import GitStore

extension Repository {
    /// The commit a reference (or `HEAD`) points at, following symbolic references; nil when
    /// the reference does not exist or names a branch with no commit yet. Read from the
    /// reference files (``ReferenceFiles``), without libgit2.
    /// - Throws: ``GitError`` when the reference exists but cannot be read.
    public func resolve(_ name: String) throws -> OID? {
        try ReferenceFiles.resolve(name, gitDirectory: gitDirectory, followingSymbolic: true)
    }

    /// Points `name` at `target`. With `expected`, the update happens only if the reference
    /// still points there (nil: only if it does not exist): a compare-and-swap.
    /// - Throws: ``GitError`` (``GitError/isNotFastForward`` when the reference moved).
    public func setReference(_ name: String, to target: OID, expected: OID?, message: String) throws {
        try storePendingPack()
        var raw = target.raw
        var reference: OpaquePointer?
        defer { git_reference_free(reference) }
        CrashPoint.reach(crashPointName(name, "before"))
        if var current = expected?.raw {
            try check(
                "git_reference_create_matching",
                git_reference_create_matching(&reference, pointer, name, &raw, 1, &current, message))
        } else {
            try check("git_reference_create", git_reference_create(&reference, pointer, name, &raw, 0, message))
        }
        CrashPoint.reach(crashPointName(name, "after"))
    }

    /// Points `name` at `target` whatever it pointed at before.
    public func forceReference(_ name: String, to target: OID, message: String) throws {
        try storePendingPack()
        var raw = target.raw
        var reference: OpaquePointer?
        defer { git_reference_free(reference) }
        CrashPoint.reach(crashPointName(name, "before"))
        try check("git_reference_create", git_reference_create(&reference, pointer, name, &raw, 1, message))
        CrashPoint.reach(crashPointName(name, "after"))
    }

    /// `ref:<device|cloud>:<reference>:<moment>`, the crash point around a reference update.
    func crashPointName(_ reference: String, _ moment: String) -> String {
        "ref:\(workDirectory == nil ? "cloud" : "device"):\(reference):\(moment)"
    }

    /// Makes HEAD a symbolic reference to `reference` (for example `refs/heads/main`).
    public func setHead(_ reference: String) throws {
        try check("git_repository_set_head", git_repository_set_head(pointer, reference))
    }
}

extension Repository {
    /// Removes the reference `name`; nothing happens when it does not exist.
    public func removeReference(_ name: String) throws {
        try check("git_reference_remove", git_reference_remove(pointer, name))
    }
}
