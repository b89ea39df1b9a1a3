import Testing

@testable import GitFormat

/// Paths are split at their `/` bytes, as git and the file system split them.
@Suite struct PathComponentsTests {
    @Test(arguments: ["", "/", "a", "a/b", "/a", "a/", "a//b", "//", "notes/été/ünïcode.md", "日本/語/文書.txt", "a/b/c/d/e"])
    func partsAreTheSameAsSplittingAtEachSlash(_ path: String) {
        #expect(path.slashSeparated() == path.split(separator: "/"))
        #expect(path.slashSeparated(omittingEmpty: false) == path.split(separator: "/", omittingEmptySubsequences: false))
        let inner = path.dropFirst()
        #expect(inner.slashSeparated() == inner.split(separator: "/"))
    }

    /// A combining mark after a `/` makes one character of the two, which `split` does not cut;
    /// the file system does (a folder `a`, a file starting with the mark), and so does this.
    @Test func aCombiningMarkAfterASlashDoesNotHideIt() {
        let path = "a/\u{338}b"
        #expect(path.split(separator: "/").count == 1)
        #expect(path.slashSeparated() == ["a", "\u{338}b"])
    }
}
