import Foundation
import Testing

@testable import GitStore

/// The small text helpers that took the place of Foundation's (which `concord` no longer links)
/// answer as Foundation's did, on the values Concord gives them.
@Suite struct TextHelpersTests {
    /// Sizes in every unit, at and around each unit's edges and roundings, in both styles, read
    /// as `ByteCountFormatter` reads them (which groups thousands of bytes, "1,000 bytes").
    @Test func byteCountsReadAsByteCountFormatterReadsThem() {
        var sizes = [1, 2, 999, 1000, 1023, 1024, 1025, 1536, 2047, 10_000, 100_000, 999_999, 1_000_000, 1_048_576]
        sizes += [1_572_864, 10_485_760, 15_000_000, 104_857_600, 999_999_999, 1_073_741_824, 1_610_612_736, 5_000_000_000]
        sizes += [2_000_000_000_000, 3 << 40, 7 << 50, 1 << 62]
        for size in sizes {
            #expect(ByteCount.text(size) == ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .binary), "\(size)")
            #expect(ByteCount.text(size, style: .decimal) == ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file), "\(size)")
        }
    }

    /// The folder and name of a path, as `NSString`'s path methods give them.
    @Test func pathsSplitAsNSStringSplitsThem() {
        for path in ["/a/b", "/a/b/", "/a", "/", "a/b", "a//b", "//a", "", "/a/b//", "/srv/x y/z.git", "doc.txt/"] {
            #expect(PathText.folder(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
            #expect(PathText.name(of: path) == (path as NSString).lastPathComponent, "\(path)")
        }
        #expect(PathText.folder(of: "a") == "")
        #expect(PathText.name(of: "a") == "a")
    }

    /// The temporary folder is `TMPDIR`'s, with a slash at its end, as Foundation's; `/tmp/` when
    /// `TMPDIR` is unset or empty. (The tests run side by side: this one never sets `TMPDIR`.)
    @Test func theTemporaryFolderIsTMPDIRsAsFoundationSaysIt() {
        #expect(ProcessVariable.temporaryFolder == NSTemporaryDirectory())
        #expect(ProcessVariable.temporaryFolder(given: "/var/tmp") == "/var/tmp/")
        #expect(ProcessVariable.temporaryFolder(given: "/srv/scratch/") == "/srv/scratch/")
        #expect(ProcessVariable.temporaryFolder(given: nil) == "/tmp/")
        #expect(ProcessVariable.temporaryFolder(given: "") == "/tmp/")
    }

    /// Spaces and tabs go from both ends, line ends only when asked; inner ones stay.
    @Test func trimmingTakesSpacesAndTabsFromTheEnds() {
        #expect(" \t a b \t".trimmingSpaces() == "a b")
        #expect("\n a \n".trimmingSpaces() == "\n a \n")
        #expect("\n a \r\n".trimmingSpaces(newlines: true) == "a")
        #expect(" \u{00A0}x\u{2003}".trimmingSpaces() == "x")
        #expect("   ".trimmingSpaces() == "")
        for text in [" \t a b \t", "\u{00A0}x\u{2003} ", "12 ", ""] {
            #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces), "\(text)")
            #expect((text + "\n").trimmingSpaces(newlines: true) == (text + "\n").trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
