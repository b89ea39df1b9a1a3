internal import GitFormat

/// The names a container may hold, for paths typed by a person and for entries that arrive from
/// the cloud alike (git's `verify_path` and `fsck` are the models): whatever one device can save,
/// every device can write, and nothing can name a place outside the container or inside `.git`,
/// or look like the temporary files a write leaves beside a document until it is renamed.
enum PathRules {
    /// The longest name of one path component, in UTF-8 bytes (Linux's `NAME_MAX`).
    static let maximumNameLength = 255
    /// The longest path from the container root, in UTF-8 bytes (macOS's `PATH_MAX`, so that a
    /// container fits under any folder on any system Concord runs on).
    static let maximumPathLength = 1024

    /// Why `name` cannot be one component of a path in a container; nil when it can.
    static func problem(withName name: Substring) -> String? {
        if name.isEmpty { return "an empty name" }
        if name == "." || name == ".." { return "'\(name)' leaves the folder it is in" }
        // Most names are printable ASCII without '/', which none of the next four refuse.
        if !name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) {
            // By bytes: a '/' followed by a combining mark is one Character, which `contains("/")` misses.
            if name.utf8.contains(UInt8(ascii: "/")) { return "a name holding '/'" }
            if name.utf8.contains(0) { return "a name holding a NUL byte" }
            if name.unicodeScalars.contains("\u{FFFD}") { return "a name that is not valid UTF-8" }
            if name.unicodeScalars.contains(where: isControl) { return "a name holding a control character" }
        }
        if name.utf8.count > maximumNameLength {
            return "a name of \(name.utf8.count) bytes (at most \(maximumNameLength))"
        }
        if isDotGit(name) { return "'\(name)' would be read as '.git', which belongs to git" }
        if name.utf8.starts(with: WorkTree.temporaryPrefix.utf8) {
            return "names starting with '\(WorkTree.temporaryPrefix)' are Concord's temporary files"
        }
        return nil
    }

    /// Why the slash-separated `path` cannot name something in a container; nil when it can.
    static func problem(withPath path: String) -> String? {
        if let problem = lengthProblem(path) ?? slashProblem(path) { return problem }
        for component in path.slashSeparated(omittingEmpty: false) {
            if let problem = problem(withName: component) { return problem }
        }
        return nil
    }

    /// Why `path` is too long for every system a container may be on; nil when it is not.
    static func lengthProblem(_ path: String) -> String? {
        path.utf8.count > maximumPathLength ? "a path of \(path.utf8.count) bytes (at most \(maximumPathLength))" : nil
    }

    /// The key under which two names are one on a file system that ignores case or Unicode
    /// normalization (APFS and HFS+ on macOS, NTFS on Windows): the name lowercased, kept as a
    /// `String`, which compares and hashes by canonical equivalence, so that `Café.txt`,
    /// `café.txt` (NFC) and `café.txt` (NFD) share one key. Used only to find such twins; paths
    /// themselves are told apart by their bytes (``TreePath``).
    static func foldedName(_ name: some StringProtocol) -> String { name.lowercased() }

    /// Why `name` cannot be created beside `existing`, its twin (other bytes, the same
    /// ``foldedName(_:)``); `what` is "document" or "folder", the kind of `existing`, and
    /// `subject` how the message names `name` ("it", or the folder quoted).
    static func twinProblem(_ name: String, existing: String, what: String, subject: String = "it") -> String {
        let shown = TerminalText.escaped(existing)
        // `String ==` on purpose: canonically equivalent twins differ by normalization alone.
        if name == existing {
            return "\(subject) is the existing \(what) '\(shown)' in another Unicode normalization, which a macOS device could not hold beside it"
        }
        return "\(subject) differs from the existing \(what) '\(shown)' only by case, which a macOS or Windows device could not hold beside it"
    }

    /// Why a '/' of `path` is not a separator of its own; nil when each is. A name that starts
    /// with a combining mark (or ends with a prepended one) joins the '/' beside it into one
    /// character: Swift's `String` then splits the path elsewhere than git does (a folder `d`
    /// holding `\u{301}x.txt` reads as one name), and an integration once dropped such a file.
    static func slashProblem(_ path: String) -> String? {
        // Only a combining or prepended mark, never ASCII, joins a '/' to its neighbour.
        if path.utf8.allSatisfy({ $0 < 0x80 }) { return nil }
        let bytes = path.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) }
        let characters = path.reduce(0) { $0 + ($1 == "/" ? 1 : 0) }
        return bytes == characters ? nil : "a '/' joined with the character beside it into one (a name starting with a combining mark)"
    }

    /// C0 controls, DEL and C1 controls: characters a terminal may act on.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// True for `.git` in any case, and for the names that HFS+ or NTFS would read as `.git`:
    /// with code points HFS+ ignores (`.g\u{200C}it`), with trailing dots or spaces or an NTFS
    /// stream (`.git. `, `.git::$INDEX_ALLOCATION`), or NTFS's short name `git~1`.
    static func isDotGit(_ name: Substring) -> Bool {
        // A name whose first byte is ASCII starts with that character once the code points
        // HFS+ ignores (none ASCII) are dropped: unless it is '.' or 'g', no reading is '.git'.
        if let first = name.utf8.first, first < 0x80, first != UInt8(ascii: "."), first | 0x20 != UInt8(ascii: "g") { return false }
        let visible = String(String.UnicodeScalarView(name.unicodeScalars.filter { !isIgnoredByHFS($0) })).lowercased()
        if visible == ".git" { return true }
        let lowered = name.lowercased()
        for stem in [".git", "git~1"] where lowered.hasPrefix(stem) {
            for character in lowered.dropFirst(stem.count) {
                if character == ":" || character == "\\" { return true }
                if character != "." && character != " " { return false }
            }
            return true
        }
        return false
    }

    /// The code points HFS+ drops when comparing names (git's `next_hfs_char`).
    private static func isIgnoredByHFS(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200C...0x200F, 0x202A...0x202E, 0x206A...0x206F, 0xFEFF: true
        default: false
        }
    }
}
