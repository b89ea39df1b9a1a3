internal import GitFormat
internal import GitStore

/// The rules that decide which work-tree files are never saved, read in order, the last rule
/// that matches deciding: Concord's built-in defaults, then the container's `.concordignore`
/// (a document like any other, versioned and merged, so every device reads the same rules), then
/// this device's `.git/concord/ignore` (never leaves the device). A `!` rule re-includes what an
/// earlier one ignored, a default included.
///
/// As in git, nothing below an ignored folder can be re-included (the folder is not looked into),
/// and `.concordignore` itself is never ignored, so that the rules always travel.
struct IgnoreRules: Sendable {
    /// The container's rules file, at the root of the work tree.
    static let containerFile = ".concordignore"
    /// This device's rules file, relative to the git directory.
    static let deviceFile = ContainerLayout.deviceIgnore
    /// The most bytes read of a rules file, and the most rules read from one: an ignore file is
    /// a few hundred bytes, and one from the cloud must not make each scan of the work tree slow.
    static let limits = (bytes: 1 << 20, rules: 10_000)

    /// Editors' and systems' temporary and private files, as gitignore lines.
    static let builtInLines = [
        // vim: swap files, backups, the probe it writes to test a folder (`4913`)
        ".*.sw[a-p]", ".sw[a-p]", "*~", "4913",
        // emacs: auto-save files and locks
        "\\#*#", ".#*",
        // JetBrains IDEs: a person's workspace, and the files of a safe write
        "**/.idea/workspace.xml", "**/.idea/tasks.xml", "**/.idea/usage.statistics.xml", "**/.idea/shelf",
        "*___jb_tmp___", "*___jb_old___",
        // macOS
        ".DS_Store", "._*", ".Spotlight-V100", ".Trashes", ".fseventsd", ".TemporaryItems", ".DocumentRevisions-V100",
        // Windows
        "Thumbs.db", "ehthumbs.db", "[Dd]esktop.ini", "~$*", "$RECYCLE.BIN",
        // Linux desktops and file systems
        ".goutputstream-*", ".nfs*", ".fuse_hidden*", ".Trash-*",
        // temporary files, LibreOffice's locks
        "*.tmp", ".~lock.*#",
    ]

    static let builtIn: [IgnoreRule] = builtInLines.compactMap { IgnoreRule(Substring($0), source: .builtIn) }

    /// Every rule, in the order they are read.
    let rules: [IgnoreRule]
    /// True when a rules file held more than ``limits``: the rest of it was left out.
    let isTruncated: Bool

    /// The `defaults` (the built-in rules), then those of the texts of `.concordignore` and of
    /// this device's file.
    init(container: String? = nil, device: String? = nil, defaults: [IgnoreRule] = builtIn) {
        var rules = defaults
        var truncated = false
        for (text, source) in [(container, IgnoreRule.Source.container), (device, IgnoreRule.Source.device)] {
            guard let text else { continue }
            var count = 0
            for (index, line) in text.lines().enumerated() {
                guard let rule = IgnoreRule(line, source: source(index + 1)) else { continue }
                guard count < Self.limits.rules else {
                    truncated = true
                    break
                }
                rules.append(rule)
                count += 1
            }
        }
        self.rules = rules
        isTruncated = truncated
    }

    /// The rules a device reads now: the defaults, the work tree's `.concordignore` (what the
    /// person sees and edits; a sync writes the container's version there), and the device's
    /// file in the git directory of `repository`. A file that is missing, a link or not a
    /// regular file adds no rules.
    static func current(workTree: WorkTree, gitDirectory: String) -> IgnoreRules {
        func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
        let own = WorkTree(root: String(gitDirectory.dropLast(gitDirectory.hasSuffix("/") ? 1 : 0)))
        return IgnoreRules(
            container: text(workTree.readPrefix(containerFile, limit: limits.bytes)),
            device: text(own.readPrefix(deviceFile, limit: limits.bytes)))
    }

    /// The rule that decides the entry at `path` itself (its folders are not looked at): the last
    /// that matches, a `!` rule included; nil when none matches.
    func decidingRule(_ path: String, isFolder: Bool) -> IgnoreRule? {
        if path == Self.containerFile { return nil }
        let components = path.slashSeparated().map { Array($0.unicodeScalars) }
        return lastRule(matching: components, isFolder: isFolder)
    }

    /// The rule that ignores the entry at `path`, or one of the folders it is in; nil when it
    /// is not ignored.
    func ignoringRule(_ path: String, isFolder: Bool) -> IgnoreRule? {
        if path == Self.containerFile { return nil }
        let components = path.slashSeparated().map { Array($0.unicodeScalars) }
        guard !components.isEmpty else { return nil }
        for depth in 1...components.count {
            let reached = Array(components[..<depth])
            let folder = depth < components.count || isFolder
            if let rule = lastRule(matching: reached, isFolder: folder), !rule.reincludes {
                return rule
            }
        }
        return nil
    }

    /// The last rule that matches the entry whose components are `components`. The rules are
    /// read in place: a closure over each (`rules.last(where:)`) copied every rule it was given.
    private func lastRule(matching components: [[Unicode.Scalar]], isFolder: Bool) -> IgnoreRule? {
        var index = rules.endIndex
        while index > rules.startIndex {
            index -= 1
            if rules[index].compiled.matches(components, isFolder: isFolder) { return rules[index] }
        }
        return nil
    }

    /// ``ignoringRule(_:isFolder:)`` of an entry that ``decidingRule(_:isFolder:)`` alone decides
    /// (its folders were looked at already): the rule when it ignores.
    func ignoringRuleHere(_ path: String, isFolder: Bool) -> IgnoreRule? {
        decidingRule(path, isFolder: isFolder).flatMap { $0.reincludes ? nil : $0 }
    }
}
