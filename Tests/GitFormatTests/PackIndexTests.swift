import Foundation
import GitFormat
import Testing
import TestSupport

/// A pack index is checked whole before anything reads it (libgit2's `pack_index_check`): its
/// fan-out never decreases, its size is what its object count says, and its ids are in order,
/// each under its first byte's fan-out entry.
@Suite struct PackIndexTests {
    /// Three ids: two under the fan-out entry 0x10, one under 0x20.
    let objects: [(id: [UInt8], offset: Int)] = [
        ([0x10] + Array(repeating: 1, count: 19), 12),
        ([0x10] + Array(repeating: 2, count: 19), 40),
        ([0x20] + Array(repeating: 3, count: 19), 3 << 31),
    ]

    func refusal(_ bytes: [UInt8]) -> FormatError? {
        bytes.withUnsafeBytes { buffer -> FormatError? in
            do throws(FormatError) {
                _ = try PackIndex(validating: buffer)
                return nil
            } catch {
                return error
            }
        }
    }

    @Test func aValidIndexGivesEveryIdAndOffset() throws {
        let bytes = GitBytes.packIndex(objects)
        try bytes.withUnsafeBytes { buffer in
            let index = try PackIndex(validating: buffer)
            #expect(index.count == 3)
            for (number, object) in objects.enumerated() {
                let id = try #require(OID(bytes: object.id))
                #expect(index.id(at: number) == id)
                #expect(index.number(of: id) == number)
                #expect(try index.offset(at: number, packSize: (3 << 31) + 100) == object.offset)
            }
            #expect(index.number(of: try #require(OID(bytes: [0x10] + Array(repeating: 9, count: 19)))) == nil)
            #expect(throws: FormatError.self) { try index.offset(at: 1, packSize: 59) }
        }
    }

    /// A fan-out that decreases at 0x30 and comes back: every id still lies under its own
    /// entry, so only the monotonic check refuses it (a binary search would run with its low
    /// bound above its high one).
    @Test func aFanOutThatDecreasesIsRefused() throws {
        var fanout = (0..<256).map { $0 < 0x10 ? 0 : $0 < 0x20 ? 2 : 3 }
        fanout[0x30] = 1
        let error = try #require(refusal(GitBytes.packIndex(objects, fanout: fanout)))
        #expect(error.message.contains("fan-out table decreases at entry 48"), "\(error)")
    }

    /// The index whose fan-out runs past its object count: the ids it claims would be
    /// read past the end of the file.
    @Test func aFanOutThatClaimsMoreObjectsThanTheFileHoldsIsRefused() throws {
        var fanout = (0..<256).map { $0 < 0x10 ? 0 : $0 < 0x20 ? 2 : 3 }
        fanout[255] = 0x7FFF_FFFF
        let error = try #require(refusal(GitBytes.packIndex(objects, fanout: fanout)))
        #expect(error.message.contains("does not match the 2147483647 objects"), "\(error)")
    }

    @Test func idsOutOfOrderAreRefused() throws {
        let error = try #require(refusal(GitBytes.packIndex([objects[1], objects[0], objects[2]])))
        #expect(error.message.contains("not in order at object 1"), "\(error)")
        let twice = try #require(refusal(GitBytes.packIndex([objects[0], objects[0], objects[2]])))
        #expect(twice.message.contains("not in order at object 1"), "\(twice)")
    }

    @Test func anIdUnderAnotherFanOutEntryIsRefused() throws {
        let fanout = (0..<256).map { $0 < 0x10 ? 0 : $0 < 0x11 ? 1 : 3 }
        let error = try #require(refusal(GitBytes.packIndex(objects, fanout: fanout)))
        #expect(error.message.contains("wrong fan-out entry"), "\(error)")
    }

    @Test func aLargeOffsetTheIndexDoesNotHoldIsRefused() throws {
        var bytes = GitBytes.packIndex(objects)
        // The third object names entry 1 of a table of large offsets that has one entry.
        let at = 8 + 256 * 4 + 3 * 24 + 2 * 4
        bytes.replaceSubrange(at..<(at + 4), with: GitBytes.bigEndian(0x8000_0001, width: 4))
        try bytes.withUnsafeBytes { buffer in
            let index = try PackIndex(validating: buffer)
            #expect(throws: FormatError.self) { try index.offset(at: 2, packSize: 1 << 40) }
        }
    }
}
