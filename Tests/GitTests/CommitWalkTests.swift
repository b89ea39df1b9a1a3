import Foundation
import Synchronization
import GitFormat
import TestSupport
import Testing

@testable import Git
@testable import GitStore

/// GitStore's own commit walk gives the commits libgit2's revision walk gives, in its order
/// (topological, newest first), on histories with merges, equal times and clocks that went back.
@Suite struct CommitWalkTests {
    let folder = NSTemporaryDirectory() + "concord-commitwalk-" + UUID().uuidString

    /// A generator of the same numbers for the same seed.
    struct Numbers {
        var state: UInt64

        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func sameCommitsInTheSameOrderAsLibgit2(seed: Int) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        var numbers = Numbers(state: UInt64(seed))
        let tree = try repository.updateTree(nil, [])
        var commits: [OID] = []
        for index in 0..<60 {
            var parents: [OID] = []
            if !commits.isEmpty, index % 17 != 0 {
                parents.append(commits[commits.count - 1 - numbers.next(min(commits.count, 4))])
                if numbers.next(4) == 0 { parents.append(commits[numbers.next(commits.count)]) }
            }
            // Few distinct times (ties), some going back.
            let time = Date(timeIntervalSince1970: TimeInterval(1_000_000 + 60 * (index / 3) - 600 * numbers.next(2) * numbers.next(2)))
            let signature = Signature(name: "t", email: "t@example.invalid", time: time)
            commits.append(
                try repository.createCommit(
                    tree: tree, parents: Array(Set(parents)).sorted { $0.hex < $1.hex }, author: signature, committer: signature, message: "\(index)\n"))
        }
        for _ in 0..<20 {
            let tips = (0..<1 + numbers.next(3)).map { _ in commits[numbers.next(commits.count)] }
            let hidden = (0..<numbers.next(3)).map { _ in commits[numbers.next(commits.count)] }
            let expected = try repository.revisionWalk(from: tips, hiding: hidden)
            #expect(try repository.store.commits(from: tips, hiding: hidden) == expected)
            var walked: [OID] = []
            try repository.walk(from: tips, hiding: hidden) { id in
                walked.append(id)
                return walked.count < 7
            }
            #expect(walked == Array(expected.prefix(7)))
        }
    }

    /// A long line of commits is walked and let go of without a recursion as deep as the
    /// history: each node held its parents, so freeing them was a chain of releases, and
    /// `concord clone` of a container of 200,000 commits in a line crashed (its thread's stack
    /// overflowed). 40,000 commits walked on a thread of 256 KB; seen crashing before the fix.
    @Test func aLongLineOfCommitsIsWalkedAndLetGoOfOnASmallStack() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try Repository.create(at: folder, bare: true)
        let count = 40_000
        var stream = ""
        for index in 1...count {
            stream += "commit refs/heads/main\nmark :\(index)\ncommitter t <t@example.invalid> \(1_000_000 + index) +0000\ndata 2\n\(index % 10)\n"
            if index > 1 { stream += "from :\(index - 1)\n" }
            stream += "M 100644 inline f\ndata 2\n\(index % 7)\n\n"
        }
        _ = try git(["fast-import", "--quiet"], in: folder, input: Data(stream.utf8))
        let tip = try #require(OID(hex: String(decoding: try git(["rev-parse", "main"], in: folder), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        let walked = Mutex<Result<Int, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { [folder] in
            walked.withLock { $0 = Result { try Repository.open(at: folder).store.commits(from: [tip]).count } }
            done.signal()
        }
        thread.stackSize = 256 << 10
        thread.start()
        done.wait()
        #expect(try walked.withLock { try $0?.get() } == count)
    }

    /// A cloud's commit is hashed as the walk reads it: one whose bytes do not hash to its id
    /// is refused before its parents and tree are trusted.
    @Test func aCommitThatDoesNotHashToItsIdIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let signature = Signature(name: "t", email: "t@example.invalid", time: Date(timeIntervalSince1970: 1_000_000))
        let tree = try repository.updateTree(nil, [])
        let first = try repository.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "first\n")
        let second = try repository.createCommit(tree: tree, parents: [first], author: signature, committer: signature, message: "second\n")
        // The second commit's file holds another commit's bytes, one with no parent.
        let forged = Array("tree \(tree.hex)\nauthor t <t@example.invalid> 1000000 +0000\ncommitter t <t@example.invalid> 1000000 +0000\n\nforged\n".utf8)
        let file = repository.gitDirectory + "objects/\(second.hex.prefix(2))/\(second.hex.dropFirst(2))"
        try? FileManager.default.removeItem(atPath: file)
        try Data(GitBytes.zlibStored(Array("commit \(forged.count)\0".utf8) + forged)).write(to: URL(fileURLWithPath: file))
        let store = ObjectStore(path: repository.gitDirectory + "objects/", largestObject: 1 << 20, durable: false)
        #expect(try store.commits(from: [second]) == [second], "unverified, the forged bytes are taken")
        let verifying = ObjectStore(path: repository.gitDirectory + "objects/", largestObject: 1 << 20, durable: false)
        let error = try #require(throws: StoreError.self) { try verifying.commits(from: [second], verifyingWith: { Repository.hash($0, $1) }) }
        #expect(error.kind == .damaged && error.message.contains("does not hold what its id says"))
    }
}
