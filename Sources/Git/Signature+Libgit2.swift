internal import CGit2
internal import FoundationEssentials
internal import GitFormat

extension TreeEntry {
    init(copying entry: OpaquePointer) {
        self.init(
            name: String(cString: git_tree_entry_name(entry)),
            id: OID(git_tree_entry_id(entry).pointee),
            mode: UInt32(git_tree_entry_filemode_raw(entry).rawValue)
        )
    }
}

extension Signature {
    /// The signature of a commit's `author` or `committer` line.
    init(_ person: CommitObject.Person) {
        self.init(
            name: person.name, email: person.email,
            // A commit's time is data from anywhere: held to the years 1 to 9999, as git prints them.
            time: Date(timeIntervalSince1970: TimeInterval(min(max(person.time, -62_135_596_800), 253_402_300_799))),
            timeZoneOffsetMinutes: person.offsetMinutes)
    }

    func makeSignature() throws -> UnsafeMutablePointer<git_signature>? {
        let seconds = time.timeIntervalSince1970.rounded(.down)
        // git stores times as 64-bit seconds; a date past the year 9999 is a broken clock.
        guard seconds.magnitude < 253_402_300_800, (-1440...1440).contains(timeZoneOffsetMinutes) else {
            throw GitError(message: "the date \(time) cannot be written in a commit: is this machine's clock right?", function: "git_signature_new")
        }
        Libgit2.ensure()
        var signature: UnsafeMutablePointer<git_signature>?
        try check(
            "git_signature_new",
            git_signature_new(
                &signature, name, email, git_time_t(seconds), Int32(timeZoneOffsetMinutes)))
        return signature
    }
}
