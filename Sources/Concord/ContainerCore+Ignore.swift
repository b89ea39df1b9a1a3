internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import Logging

/// What the work tree holds that is never saved: ignored files, and what no document can be.
extension ContainerCore {
    /// The ignore rules as they stand now (``IgnoreRules``); a rules file cut short at its
    /// limit is a warning.
    func ignoreRules() -> IgnoreRules {
        let rules = IgnoreRules.current(workTree: workTree, gitDirectory: repository.gitDirectory)
        if rules.isTruncated {
            history.logger.warning(
                "an ignore file holds more than \(IgnoreRules.limits.rules) rules or \(IgnoreRules.limits.bytes >> 20) MB: the rest of it is not read")
        }
        return rules
    }

    /// True when every path of `paths` is ignored (by a rule, or below an ignored folder): a
    /// save of only those paths has nothing to do.
    func allIgnored(_ paths: Set<String>, rules: IgnoreRules) -> Bool {
        paths.allSatisfy { rules.ignoringRule($0, isFolder: workTree.kind($0) == .directory) != nil }
    }

    /// Every work-tree entry that is not saved, with the reason, sorted by path: ignored files
    /// and folders (an ignored folder once, not what it holds), files over the size limit,
    /// symbolic links, empty folders, invalid names and entries that are not regular files.
    /// Reads the work tree only; writes nothing.
    func ignoredEntries() throws -> [IgnoredEntry] {
        let rules = ignoreRules()
        let headTree = try history.tree(of: history.head())
        let patterns = try history.packagePatterns(in: headTree)
        let limit = try limits().objectSize
        var result: [IgnoredEntry] = []
        var folders = [""]
        while let folder = folders.popLast() {
            for name in workTree.names(inFolder: folder) where !name.hasPrefix(WorkTree.temporaryPrefix) {
                if folder.isEmpty && ContainerLayout.isReservedAtRoot(name) { continue }
                let path = folder.isEmpty ? name : "\(folder)/\(name)"
                let kind = workTree.kind(path)
                func add(_ reason: IgnoredEntry.Reason) throws {
                    let isDocument = try history.entry(path, in: headTree) != nil
                    result.append(IgnoredEntry(path: path, isFolder: kind == .directory, isDocument: isDocument, reason: reason))
                }
                if let rule = rules.ignoringRuleHere(path, isFolder: kind == .directory) {
                    try add(.rule(rule))
                    continue
                }
                if case let .invalidPath(_, reason)? = Self.pathProblem(path) {
                    try add(.invalidName(reason))
                    continue
                }
                switch kind {
                case .symlink, .behindLink:
                    try add(.symbolicLink)
                case .other:
                    try add(.notRegularFile)
                case .directory:
                    if workTree.names(inFolder: path).isEmpty, !patterns.matches(name) {
                        try add(.emptyFolder)
                    } else {
                        folders.append(path)
                    }
                case .file:
                    if let size = workTree.fileSize(path), size > limit { try add(.overSizeLimit(size: size, limit: limit)) }
                case .missing:
                    break
                }
            }
        }
        return result.sorted { $0.path.bytesPrecede($1.path) }
    }

    /// The rule that ignores `document` (or a folder it is in); nil when it is not ignored.
    func ignoringRule(of document: DocumentPath) throws -> IgnoreRule? {
        let patterns = try history.packagePatterns(in: try history.tree(of: history.head()))
        let isPackage = patterns.matches(document.name)
        return ignoreRules().ignoringRule(document.value, isFolder: isPackage || workTree.kind(document.value) == .directory)
    }

    private static func pathProblem(_ path: String) -> ConcordError? {
        do {
            _ = try DocumentPath(path)
            return nil
        } catch let error as ConcordError {
            return error
        } catch {
            return nil
        }
    }
}
