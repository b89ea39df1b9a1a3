package import GitFormat

/// An object's type and bytes, as git hashes them, read to be written into a pack.
package struct ObjectBytes {
    /// The pack entry an object was rebuilt from, as read: copying `stream` stores exactly
    /// the bytes that were read, so a pack writer need not compress them again.
    package struct Stored {
        /// The entry's compressed data, a copy taken before it was inflated.
        package var stream: [UInt8]
        /// For a delta: its base, the base's bytes it was applied to, and the instructions
        /// `stream` inflated to.
        package var delta: (base: OID, baseBytes: [UInt8], instructions: [UInt8])?

        /// An entry read as `stream`, a delta's parts when it is one.
        package init(stream: [UInt8], delta: (base: OID, baseBytes: [UInt8], instructions: [UInt8])? = nil) {
            self.stream = stream
            self.delta = delta
        }
    }

    package var type: ObjectType
    package var bytes: [UInt8]
    /// Set only when asked for (a cloud's objects, which are hashed before anything of them
    /// is written), and when the object came from one entry of a pack.
    package var stored: Stored? = nil

    /// An object of `type` holding `bytes`, read from `stored` when given.
    package init(type: ObjectType, bytes: [UInt8], stored: Stored? = nil) {
        self.type = type
        self.bytes = bytes
        self.stored = stored
    }
}
