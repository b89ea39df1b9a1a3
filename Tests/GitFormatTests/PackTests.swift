import Foundation
import GitFormat
import Testing
import TestSupport

/// A pack's header and trailer are checked against its index, and each entry's header before
/// its data is read: a size too large to hold, or a base outside the pack, is refused.
@Suite struct PackTests {
    func header(_ pack: [UInt8], at start: Int) throws -> Pack.EntryHeader {
        try pack.withUnsafeBytes { try Pack.entryHeader(in: $0, at: start, end: $0.count - 20) }
    }

    @Test func entryHeadersAreRead() throws {
        let blob = GitBytes.entryHeader(type: 3, size: 300) + GitBytes.zlibStored(Array(repeating: 1, count: 300))
        let offsetDelta = GitBytes.entryHeader(type: 6, size: 5, distance: blob.count) + [0]
        let referenceDelta = GitBytes.entryHeader(type: 7, size: 5, base: Array(repeating: 9, count: 20)) + [0]
        let (pack, offsets) = GitBytes.pack([blob, offsetDelta, referenceDelta])
        let whole = try header(pack, at: offsets[0])
        #expect(whole.type == .blob && whole.size == 300 && whole.base == nil && whole.dataStart == offsets[0] + 2)
        let delta = try header(pack, at: offsets[1])
        #expect(delta.type == .offsetDelta && delta.size == 5 && delta.base == .offset(12) && delta.dataStart == offsets[1] + 3)
        let id = try #require(OID(bytes: Array(repeating: 9, count: 20)))
        let reference = try header(pack, at: offsets[2])
        #expect(reference.type == .referenceDelta && reference.base == .id(id) && reference.dataStart == offsets[2] + 21)
    }

    /// A size of more than seven bytes (46 bits) is more than any limit: refused as over the
    /// limit before any arithmetic on it can overflow (nine bytes would reach the sign bit).
    @Test func aSizeTooLargeToHoldIsRefused() throws {
        let (pack, offsets) = GitBytes.pack([[0xBF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0]])
        let error = try #require(throws: FormatError.self) { try header(pack, at: offsets[0]) }
        #expect(error.isOverLimit, "\(error)")
        let (largest, at) = GitBytes.pack([GitBytes.entryHeader(type: 3, size: 1 << 46 - 1) + [0]])
        #expect(try header(largest, at: at[0]).size == 1 << 46 - 1)
        #expect(1 << 46 <= Pack.largestDeclaredSize)
    }

    @Test func aBaseOutsideThePackIsRefused() throws {
        let (pack, offsets) = GitBytes.pack([GitBytes.entryHeader(type: 6, size: 5, distance: 1) + [0]])
        #expect(throws: FormatError.self) { try header(pack, at: offsets[0]) }
        #expect(throws: FormatError.self) { try header(pack, at: 11) }
    }

    @Test func aPackIsCheckedAgainstItsIndex() throws {
        let checksum = Array(repeating: UInt8(0x5A), count: 20)
        let id = [0x42] + Array(repeating: UInt8(0), count: 19)
        let index = GitBytes.packIndex([(id, 12)], packChecksum: checksum)
        let entry = GitBytes.entryHeader(type: 3, size: 0) + GitBytes.zlibStored([])
        try index.withUnsafeBytes { indexBytes in
            let index = try PackIndex(validating: indexBytes)
            func validate(_ pack: [UInt8]) -> Bool { pack.withUnsafeBytes { (try? Pack.validate($0, against: index)) != nil } }
            #expect(validate(GitBytes.pack([entry], trailer: checksum).bytes))
            #expect(!validate(GitBytes.pack([entry], count: 2, trailer: checksum).bytes))
            #expect(!validate(GitBytes.pack([entry]).bytes))
            var version = GitBytes.pack([entry], trailer: checksum).bytes
            version[7] = 4
            #expect(!validate(version))
        }
    }
}
