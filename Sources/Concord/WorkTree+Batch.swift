internal import Git
internal import GitFormat
internal import GitStore
#if canImport(Glibc)
internal import Glibc
#endif

extension WorkTree {
    /// Many files written into place together, each atomically, with two flushes of the file
    /// system for all of them instead of two per file (the file, then its folder).
    ///
    /// Each new content goes to a temporary file beside its path; one flush makes them all
    /// durable; each is then renamed into place, and ``finish()`` flushes once more, so that when
    /// it returns every write and removal is on the disk. At any crash a path holds its old
    /// content or its new one, never a part. A crash before the renames leaves temporary files
    /// (``WorkTree/temporaryPrefix``, never read as documents), which
    /// ``WorkTree/removeTemporaryFiles(inFolders:)`` removes.
    final class Batch {
        private struct Pending {
            var folder: String
            var name: String
            var temporary: String
            var path: String
        }

        /// Files written but not renamed yet, past which the batch is flushed early: its
        /// temporary files and their folders' descriptors stay bounded.
        private static let pendingLimit = (files: 4096, bytes: 64 << 20)

        private let workTree: WorkTree
        private var pending: [Pending] = []
        /// The folder the last file was written into: a checkout goes in path order, so the
        /// next file is mostly in it (reaching it again opened each folder from the root: three
        /// more opens and closes a file at three levels). Forgotten at each removal and rename.
        private var lastFolder: (path: String, descriptor: Descriptor)?
        private var pendingBytes = 0
        private var changed = false

        /// The paths the file system refused (a name it cannot hold, a link in the way), each
        /// with its error: renamed into place at ``finish()``, they are reported there.
        private(set) var refused: [(path: String, error: ConcordError)] = []

        /// A batch of writes into `workTree`.
        init(_ workTree: WorkTree) { self.workTree = workTree }

        /// Writes the blob `id` to a temporary file beside `path`, read straight from the
        /// repository; it replaces `path` at ``finish()``.
        func write(_ path: String, blob id: OID, mode: UInt32, from repository: Repository) throws {
            let (folder, name) = workTree.split(path)
            let parent: Descriptor
            if let lastFolder, lastFolder.path.sameBytes(as: folder) {
                parent = lastFolder.descriptor
            } else {
                parent = try workTree.reachable(folder, for: path, creating: true)
                lastFolder = (folder, parent)
            }
            let (temporary, count) = try repository.withBlob(id) { bytes in
                (try workTree.writeTemporary(bytes, mode: mode, in: parent, for: path, flushing: false), bytes.count)
            }
            pending.append(Pending(folder: folder, name: name, temporary: temporary, path: path))
            pendingBytes += count
            if pending.count >= Self.pendingLimit.files || pendingBytes >= Self.pendingLimit.bytes { try moveIntoPlace() }
        }

        /// Removes `path` now (a folder with everything in it), flushed at ``finish()``.
        func remove(_ path: String) throws {
            lastFolder = nil
            try workTree.remove(path, syncing: false)
            changed = true
        }

        /// Puts every file written into place and flushes the file system: when it returns, the
        /// batch is on the disk. A rename the file system refuses is left out and listed in
        /// ``refused``; any other failure throws, the temporary files not renamed removed.
        func finish() throws {
            try moveIntoPlace()
            if changed { try workTree.syncFileSystem() }
            changed = false
        }

        /// Removes the temporary files not renamed into place (after a failure).
        func discard() {
            var folder: (path: String, descriptor: Descriptor)?
            for file in pending {
                if folder.map({ !$0.path.sameBytes(as: file.folder) }) ?? true {
                    guard let descriptor = try? workTree.open(file.folder, creating: false) else { continue }
                    folder = (file.folder, descriptor)
                }
                if let descriptor = folder?.descriptor { unlinkat(descriptor.value, file.temporary, 0) }
            }
            pending = []
            pendingBytes = 0
        }

        /// Flushes the temporary files written so far, then renames each into place.
        private func moveIntoPlace() throws {
            guard !pending.isEmpty else { return }
            // A rename may remove a folder in the way of a file.
            lastFolder = nil
            try workTree.syncFileSystem()
            CrashPoint.reach("worktree:flushed")
            var folder: (path: String, descriptor: Descriptor)?
            var done = 0
            defer {
                pending.removeFirst(done)
                if pending.isEmpty { pendingBytes = 0 }
            }
            for file in pending {
                done += 1
                do {
                    let parent: Descriptor
                    if let folder, folder.path.sameBytes(as: file.folder) {
                        parent = folder.descriptor
                    } else {
                        parent = try workTree.reachable(file.folder, for: file.path)
                        folder = (file.folder, parent)
                    }
                    try workTree.moveIntoPlace(file.temporary, in: parent, as: file.name, path: file.path)
                } catch let error as ConcordError {
                    guard case .notWritable = error else { throw error }
                    refused.append((file.path, error))
                }
                changed = true
                CrashPoint.reach("worktree:renamed")
            }
        }
    }
}
