internal import GitFormat
internal import GitFormat

/// An object's type and bytes, as git hashes them, read to be written into a pack.
struct ObjectBytes {
    /// The pack entry an object was rebuilt from, as read: copying `stream` stores exactly
    /// the bytes that were read, so a pack writer need not compress them again.
    struct Stored {
        /// The entry's compressed data, a copy taken before it was inflated.
        var stream: [UInt8]
        /// For a delta: its base, the base's bytes it was applied to, and the instructions
        /// `stream` inflated to.
        var delta: (base: OID, baseBytes: [UInt8], instructions: [UInt8])?
    }

    var type: ObjectType
    var bytes: [UInt8]
    /// Set only when asked for (a cloud's objects, which are hashed before anything of them
    /// is written), and when the object came from one entry of a pack.
    var stored: Stored? = nil
}
