import Foundation
import GitFormat
import Testing
import TestSupport

/// A delta rebuilds its target from its base, and a target over the limit is refused from the
/// delta's header, before anything is allocated.
@Suite struct DeltaTests {
    let base = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    func apply(_ delta: [UInt8], to base: [UInt8], largest: Int) -> [UInt8]? {
        delta.withUnsafeBytes { delta in base.withUnsafeBytes { Delta.apply(delta, to: $0, largest: largest) } }
    }

    /// A delta of a few hundred bytes whose instructions really rebuild 2 MiB (32 copies of a
    /// 64 KiB base): refused with a limit of 1 MiB, rebuilt with a limit of 2 MiB.
    @Test func aTargetOverTheLimitIsRefused() {
        let delta = GitBytes.deltaSizes(base: base.count, target: 2 << 20) + (0..<32).flatMap { _ in GitBytes.deltaCopy(offset: 0, count: 0x10000) }
        #expect(apply(delta, to: base, largest: 1 << 20) == nil)
        #expect(apply(delta, to: base, largest: 2 << 20) == Array((0..<32).map { _ in base }.joined()))
    }

    @Test func aDeltaThatReadsPastItsBaseOrMissesItsSizeIsRefused() {
        let sizes = GitBytes.deltaSizes(base: base.count, target: 10)
        #expect(apply(sizes + GitBytes.deltaCopy(offset: 65_530, count: 10), to: base, largest: 100) == nil)
        #expect(apply(sizes + GitBytes.deltaCopy(offset: 0, count: 9), to: base, largest: 100) == nil)
        #expect(apply(sizes + GitBytes.deltaCopy(offset: 0, count: 11), to: base, largest: 100) == nil)
        #expect(apply(sizes + [11] + Array(repeating: 1, count: 10), to: base, largest: 100) == nil)
        #expect(apply(sizes + [0], to: base, largest: 100) == nil)
        #expect(apply(sizes + GitBytes.deltaCopy(offset: 5, count: 10), to: base, largest: 100) == Array(base[5..<15]))
        #expect(apply(GitBytes.deltaSizes(base: base.count - 1, target: 10) + GitBytes.deltaCopy(offset: 0, count: 10), to: base, largest: 100) == nil)
    }

    @Test func aDeltaMadeRebuildsItsTarget() throws {
        var target = base
        target.replaceSubrange(30_000..<30_010, with: Array("an edit in the middle".utf8))
        let delta = try #require(base.withUnsafeBytes { base in target.withUnsafeBytes { Delta.make(from: base, to: $0, tree: false) } })
        #expect(delta.count < 100)
        #expect(delta.withUnsafeBytes { Delta.sizes($0) }.map { [$0.base, $0.target] } == [base.count, target.count])
        #expect(apply(delta, to: base, largest: target.count) == target)
        #expect(apply(delta, to: base, largest: target.count - 1) == nil)
    }
}
