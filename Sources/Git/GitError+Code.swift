internal import CGit2

extension GitError {
    /// A libgit2 return code (`GIT_ENOTFOUND`, …), or one of Concord's own, as a value to match
    /// (`error.code == .notFound`), as swift-system's `Errno` names `errno` values.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The number libgit2 returned.
        public let rawValue: Int32

        /// The code `rawValue`.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The number, as libgit2 gives it.
        public var description: String { String(rawValue) }

        /// `GIT_ERROR`: a failure with no more precise code.
        public static let generic = Code(rawValue: GIT_ERROR.rawValue)
        /// `GIT_ENOTFOUND`: the object, reference or remote does not exist.
        public static let notFound = Code(rawValue: GIT_ENOTFOUND.rawValue)
        /// `GIT_EEXISTS`: something already there prevents the operation.
        public static let exists = Code(rawValue: GIT_EEXISTS.rawValue)
        /// `GIT_EUNBORNBRANCH`: HEAD names a branch with no commit yet.
        public static let unbornBranch = Code(rawValue: GIT_EUNBORNBRANCH.rawValue)
        /// `GIT_ENONFASTFORWARD`: a reference update that is not a fast-forward.
        public static let nonFastForward = Code(rawValue: GIT_ENONFASTFORWARD.rawValue)
        /// `GIT_EINVALIDSPEC`: a name or refspec in no valid format.
        public static let invalidSpec = Code(rawValue: GIT_EINVALIDSPEC.rawValue)
        /// `GIT_ELOCKED`: another writer holds a lock file.
        public static let locked = Code(rawValue: GIT_ELOCKED.rawValue)
        /// `GIT_EMODIFIED`: a reference no longer holds the value expected (a compare-and-swap failed).
        public static let modified = Code(rawValue: GIT_EMODIFIED.rawValue)
        /// `GIT_EAUTH`: the server refused every credential offered, or there was none.
        public static let authentication = Code(rawValue: GIT_EAUTH.rawValue)
        /// `GIT_ECERTIFICATE`: a server's certificate or host key was refused.
        public static let certificate = Code(rawValue: GIT_ECERTIFICATE.rawValue)
        /// `GIT_EEOF`: the data ended too soon.
        public static let endOfFile = Code(rawValue: GIT_EEOF.rawValue)
        /// `GIT_EINVALID`: invalid input or operation.
        public static let invalid = Code(rawValue: GIT_EINVALID.rawValue)
        /// `GIT_EMISMATCH`: an object does not hash to its id.
        public static let mismatch = Code(rawValue: GIT_EMISMATCH.rawValue)
        /// A network operation that timed out (libgit2 1.7's `GIT_TIMEOUT`; 1.5 has none, and
        /// Concord watches its sockets itself).
        public static let timeout = Code(rawValue: -37)
        /// An object refused before it was read for claiming more bytes than a limit allows
        /// (Concord's own: libgit2 has none).
        public static let overLimit = Code(rawValue: -1000)
        /// A server's answer refused because it ran past ``NetworkLimits/answerLimit`` before any
        /// object (Concord's own).
        public static let oversizedAnswer = Code(rawValue: -1037)
    }
}
