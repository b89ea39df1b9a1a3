/// Bytes that do not hold what git's format says they must, or that claim more than a limit
/// allows: the one error every reader of this module throws, naming the format and what is wrong.
public struct FormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The formats read here.
    public enum Format: String, Sendable {
        /// A pack index (`.idx`, version 2).
        case packIndex = "pack index"
        /// A pack (`.pack`): its header, trailer and entries.
        case pack
        /// A delta's instructions.
        case delta
        /// A tree (a folder's entries).
        case tree = "folder"
        /// A commit's headers.
        case commit
        /// A loose object's file.
        case looseObject = "loose object"
        /// A reference file or `packed-refs`.
        case reference
        /// A zlib stream.
        case zlib = "compressed data"
        /// git's pkt-line framing of the network protocols.
        case packetLine = "pkt-line"
        /// What a push says to receive-pack and its report.
        case receivePack = "receive-pack"
        /// What a fetch says to upload-pack and its answer.
        case uploadPack = "upload-pack"
        /// The references a server advertises.
        case advertisement = "reference advertisement"
        /// A repository's configuration file (`.git/config`).
        case config = "configuration"
    }

    /// What was being read.
    public let format: Format
    /// What is wrong, as one phrase.
    public let message: String
    /// True when the bytes are well formed but claim more than a limit allows (a size, a
    /// depth, a count): refused before memory is spent on it.
    public let isOverLimit: Bool

    /// For an error over a limit, the size the bytes claimed, when known.
    public let claimed: Int?

    /// An error in `format`; `claimed` is the size an over-limit object claimed.
    public init(_ format: Format, _ message: String, overLimit: Bool = false, claimed: Int? = nil) {
        self.format = format
        self.message = message
        self.isOverLimit = overLimit || claimed != nil
        self.claimed = claimed
    }

    public var description: String { "\(format.rawValue): \(message)" }
}
