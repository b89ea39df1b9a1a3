internal import CGit2
public import FoundationEssentials

/// A line diff of two buffers by libgit2's xdiff, the algorithm the text merge policy's
/// three-way merge uses (``MergeFile``): the same lines are found changed in both.
public enum LineDiff {
    /// One line of a hunk, as libgit2 reports it.
    public struct Line: Sendable, Equatable {
        /// `" "` context, `"+"` added, `"-"` removed; `"="`, `">"`, `"<"` for a missing newline at the end.
        public var origin: UInt8
        /// The line's number in the old buffer, from 1; nil for an added line.
        public var oldNumber: Int?
        /// The line's number in the new buffer, from 1; nil for a removed line.
        public var newNumber: Int?
        /// The line's bytes, its newline included when it has one.
        public var content: Data
    }

    /// A run of changed lines with their context.
    public struct Hunk: Sendable, Equatable {
        /// The first line of the hunk in the old buffer, from 1 (0 when it holds none).
        public var oldStart: Int
        /// How many old lines the hunk covers.
        public var oldCount: Int
        /// The first line of the hunk in the new buffer, from 1 (0 when it holds none).
        public var newStart: Int
        /// How many new lines the hunk covers.
        public var newCount: Int
        /// The hunk's lines, in order.
        public var lines: [Line]
    }

    /// The hunks that turn `old` into `new`, each with up to `context` unchanged lines around its changes.
    /// - Throws: ``GitError`` when libgit2 cannot diff them.
    public static func hunks(old: Data, new: Data, context: Int = 3) throws -> [Hunk] {
        Libgit2.ensure()
        var options = git_diff_options()
        try check("git_diff_options_init", git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)))
        options.context_lines = UInt32(clamping: max(0, context))
        options.flags = GIT_DIFF_FORCE_TEXT.rawValue
        return try old.withUnsafeBytes { oldBytes in
            try new.withUnsafeBytes { newBytes in
                // The patch points into both buffers: it is read before they go.
                var patch: OpaquePointer?
                try check(
                    "git_patch_from_buffers",
                    git_patch_from_buffers(&patch, oldBytes.baseAddress, oldBytes.count, nil, newBytes.baseAddress, newBytes.count, nil, &options))
                guard let patch else { return [] }
                defer { git_patch_free(patch) }
                return try read(patch)
            }
        }
    }

    private static func read(_ patch: OpaquePointer) throws -> [Hunk] {
        var hunks: [Hunk] = []
        for hunkIndex in 0..<git_patch_num_hunks(patch) {
            var header: UnsafePointer<git_diff_hunk>?
            var lineCount = 0
            try check("git_patch_get_hunk", git_patch_get_hunk(&header, &lineCount, patch, hunkIndex))
            guard let header else { continue }
            var hunk = Hunk(
                oldStart: Int(header.pointee.old_start), oldCount: Int(header.pointee.old_lines), newStart: Int(header.pointee.new_start),
                newCount: Int(header.pointee.new_lines), lines: [])
            for lineIndex in 0..<lineCount {
                var line: UnsafePointer<git_diff_line>?
                try check("git_patch_get_line_in_hunk", git_patch_get_line_in_hunk(&line, patch, hunkIndex, lineIndex))
                guard let line = line?.pointee else { continue }
                let content = line.content.map { Data(bytes: $0, count: line.content_len) } ?? Data()
                hunk.lines.append(
                    Line(
                        origin: UInt8(bitPattern: line.origin), oldNumber: line.old_lineno > 0 ? Int(line.old_lineno) : nil,
                        newNumber: line.new_lineno > 0 ? Int(line.new_lineno) : nil, content: content))
            }
            hunks.append(hunk)
        }
        return hunks
    }
}
