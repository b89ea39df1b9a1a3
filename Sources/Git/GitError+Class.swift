internal import CGit2

extension GitError {
    /// The libgit2 error class (`GIT_ERROR_ODB`, `GIT_ERROR_NET`, …): which part of libgit2 (or
    /// of Concord's own code standing in for it) failed, as a value to match
    /// (`error.errorClass == .odb`).
    public struct Class: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The number libgit2 reported.
        public let rawValue: Int32

        /// The class `rawValue`.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The number, as libgit2 gives it.
        public var description: String { String(rawValue) }

        private init(_ value: git_error_t) { rawValue = Int32(value.rawValue) }

        /// `GIT_ERROR_NONE`: no class given.
        public static let none = Class(GIT_ERROR_NONE)
        /// `GIT_ERROR_NOMEMORY`.
        public static let noMemory = Class(GIT_ERROR_NOMEMORY)
        /// `GIT_ERROR_OS`: the operating system refused (a file, a socket).
        public static let os = Class(GIT_ERROR_OS)
        /// `GIT_ERROR_INVALID`: invalid input.
        public static let invalid = Class(GIT_ERROR_INVALID)
        /// `GIT_ERROR_REFERENCE`: a reference.
        public static let reference = Class(GIT_ERROR_REFERENCE)
        /// `GIT_ERROR_ZLIB`: compressed data.
        public static let zlib = Class(GIT_ERROR_ZLIB)
        /// `GIT_ERROR_REPOSITORY`: no repository, or not one that can be opened.
        public static let repository = Class(GIT_ERROR_REPOSITORY)
        /// `GIT_ERROR_CONFIG`: the configuration.
        public static let config = Class(GIT_ERROR_CONFIG)
        /// `GIT_ERROR_ODB`: the object database (a missing or damaged object).
        public static let odb = Class(GIT_ERROR_ODB)
        /// `GIT_ERROR_INDEX`: the index.
        public static let index = Class(GIT_ERROR_INDEX)
        /// `GIT_ERROR_OBJECT`: an object of the wrong type or shape.
        public static let object = Class(GIT_ERROR_OBJECT)
        /// `GIT_ERROR_NET`: the network.
        public static let net = Class(GIT_ERROR_NET)
        /// `GIT_ERROR_TREE`: a folder (tree).
        public static let tree = Class(GIT_ERROR_TREE)
        /// `GIT_ERROR_INDEXER`: a pack received.
        public static let indexer = Class(GIT_ERROR_INDEXER)
        /// `GIT_ERROR_SSL`: TLS.
        public static let ssl = Class(GIT_ERROR_SSL)
        /// `GIT_ERROR_SSH`: ssh (libssh2), host keys included.
        public static let ssh = Class(GIT_ERROR_SSH)
        /// `GIT_ERROR_CALLBACK`: a callback refused.
        public static let callback = Class(GIT_ERROR_CALLBACK)
        /// `GIT_ERROR_FILESYSTEM`: the file system.
        public static let filesystem = Class(GIT_ERROR_FILESYSTEM)
        /// `GIT_ERROR_HTTP`: HTTP.
        public static let http = Class(GIT_ERROR_HTTP)
    }
}
