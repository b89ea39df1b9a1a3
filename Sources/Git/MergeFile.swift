internal import CGit2
public import FoundationEssentials
internal import GitFormat

/// A three-way line merge of file contents by libgit2's xdiff (git's own `merge-file`).
public enum MergeFile {
    /// How to settle a region both sides changed differently.
    public enum Favor: Sendable, Equatable {
        /// Leave conflict markers.
        case none
        /// Take ours.
        case ours
        /// Take theirs.
        case theirs
        /// Take both, ours first.
        case union
    }

    /// The merged content, and whether it merged without conflict markers.
    public struct Result: Sendable, Equatable {
        /// True when no region needed a person.
        public var automergeable: Bool
        /// The merged content (with markers when not automergeable).
        public var content: Data
    }

    /// The labels written on conflict markers.
    public struct Labels: Sendable, Equatable {
        /// Label of the common ancestor (shown with the diff3 style).
        public var base: String
        /// Label of our side.
        public var ours: String
        /// Label of their side.
        public var theirs: String

        /// Creates labels.
        public init(base: String = "base", ours: String = "ours", theirs: String = "theirs") {
            self.base = base
            self.ours = ours
            self.theirs = theirs
        }
    }

    /// Merges `ours` and `theirs` against `base` (nil: no common ancestor, an empty base).
    /// - Parameter diff3: write the base region between the markers, as `git merge-file --diff3`.
    /// - Throws: ``GitError`` when libgit2 cannot merge (for example binary input).
    public static func merge(
        base: Data?, ours: Data, theirs: Data, labels: Labels = Labels(), favor: Favor = .none, diff3: Bool = false
    ) throws -> Result {
        Libgit2.ensure()
        var options = git_merge_file_options()
        try check(
            "git_merge_file_options_init",
            git_merge_file_options_init(&options, UInt32(GIT_MERGE_FILE_OPTIONS_VERSION)))
        options.favor =
            switch favor {
            case .none: GIT_MERGE_FILE_FAVOR_NORMAL
            case .ours: GIT_MERGE_FILE_FAVOR_OURS
            case .theirs: GIT_MERGE_FILE_FAVOR_THEIRS
            case .union: GIT_MERGE_FILE_FAVOR_UNION
            }
        if diff3 { options.flags = GIT_MERGE_FILE_STYLE_DIFF3.rawValue }
        let baseData = base ?? Data()
        var result = git_merge_file_result()
        defer { git_merge_file_result_free(&result) }
        try labels.base.withCString { baseLabel in
            try labels.ours.withCString { oursLabel in
                try labels.theirs.withCString { theirsLabel in
                    options.ancestor_label = baseLabel
                    options.our_label = oursLabel
                    options.their_label = theirsLabel
                    try baseData.withUnsafeBytes { baseBytes in
                        try ours.withUnsafeBytes { oursBytes in
                            try theirs.withUnsafeBytes { theirsBytes in
                                var baseInput = try input(baseBytes)
                                var oursInput = try input(oursBytes)
                                var theirsInput = try input(theirsBytes)
                                try check(
                                    "git_merge_file",
                                    git_merge_file(&result, &baseInput, &oursInput, &theirsInput, &options))
                            }
                        }
                    }
                }
            }
        }
        let content = result.ptr.map { Data(bytes: $0, count: result.len) } ?? Data()
        return Result(automergeable: result.automergeable != 0, content: content)
    }

    private static func input(_ bytes: UnsafeRawBufferPointer) throws -> git_merge_file_input {
        var input = git_merge_file_input()
        try check(
            "git_merge_file_input_init",
            git_merge_file_input_init(&input, UInt32(GIT_MERGE_FILE_INPUT_VERSION)))
        input.ptr = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        input.size = bytes.count
        input.mode = TreeEntry.fileMode
        return input
    }
}
