/// The latest-wins order: the one rule every device must agree on, so that integrating the same
/// histories, or resolving the same conflict with `--latest`, gives the same answer everywhere,
/// whatever the devices' wall clocks say.
///
/// A version that causally follows another wins. Between concurrent versions, the greater
/// hybrid logical clock wins, then the greater device id, then the greater version id.
public enum LatestWins {
    /// A version's place among concurrent versions; the greatest is the latest.
    public struct Rank: Comparable, Hashable, Sendable {
        /// The version's hybrid logical clock.
        public var clock: HybridLogicalClock
        /// The stable id of the device that saved it.
        public var deviceID: String
        /// The version's id (Concord uses the commit id).
        public var id: String

        /// Creates a rank.
        public init(clock: HybridLogicalClock, deviceID: String, id: String) {
            self.clock = clock
            self.deviceID = deviceID
            self.id = id
        }

        /// Clock first, then device id, then version id.
        public static func < (lhs: Rank, rhs: Rank) -> Bool {
            (lhs.clock, lhs.deviceID, lhs.id) < (rhs.clock, rhs.deviceID, rhs.id)
        }
    }

    /// How the latest of several versions was decided.
    public struct Decision<Version> {
        /// The latest version.
        public var winner: Version
        /// The versions no other candidate causally follows, the winner among them.
        public var concurrent: [Version]
        /// Each version another candidate causally follows, with that follower.
        public var followed: [(version: Version, follower: Version)]
    }

    /// The latest of `candidates`: those another candidate causally follows drop out, and the
    /// greatest rank among the others wins. Nil when there are no candidates.
    /// - Parameters:
    ///   - rank: each candidate's rank.
    ///   - follows: true when the first candidate causally follows the second (descends from it).
    public static func decide<T>(
        _ candidates: [T], rank: (T) throws -> Rank, follows: (T, T) throws -> Bool
    ) rethrows -> Decision<T>? {
        var concurrent: [(candidate: T, rank: Rank)] = []
        var followed: [(version: T, follower: T)] = []
        for (index, candidate) in candidates.enumerated() {
            var follower: T?
            for (other, later) in candidates.enumerated() where other != index {
                if try follows(later, candidate) {
                    follower = later
                    break
                }
            }
            if let follower {
                followed.append((candidate, follower))
            } else {
                concurrent.append((candidate, try rank(candidate)))
            }
        }
        guard let winner = concurrent.max(by: { $0.rank < $1.rank })?.candidate else { return nil }
        return Decision(winner: winner, concurrent: concurrent.map(\.candidate), followed: followed)
    }
}

extension MergeVersion {
    /// This version's place in the latest-wins order.
    public var rank: LatestWins.Rank { LatestWins.Rank(clock: clock, deviceID: deviceID, id: id) }
}
