internal import FoundationEssentials
internal import Glibc
internal import Dispatch

/// Watches every folder of a work tree with inotify and calls back with the paths a person (or
/// a program other than Concord) may have changed.
///
/// - New folders are watched as they appear, with the folders already inside them.
/// - Editors that save by writing a new file and renaming it over the old one are seen (the rename).
/// - Concord's own writes are not edits: they go through a `.concord-tmp-` file renamed into
///   place, so events on such names, and the rename that ends one, are left out.
/// - `.git` and `.concord` at the root are not watched; links are never followed.
/// - When the kernel's queue overflows, the callback comes without paths: anything may have changed.
/// - Files still being written are known (``writing``): a file created or modified and not yet
///   closed by its writer, and a file found open for writing (``WorkTree/Descriptor/isOpenForWriting(_:)``)
///   in a folder that was not watched yet (at the start, a new folder): its writer opened it
///   before the watch, so its events were never seen.
final class WorkTreeWatch: Sendable {
    private let inotify: Inotify
    /// Folders the kernel refused to watch (the watch limit reached).
    let refusedFolders: Locked<Int>
    /// The files created or written to and not closed since, each with the moment it was first
    /// seen so: a save leaves them for when they are whole.
    let writing: Locked<[String: ContinuousClock.Instant]>

    static let mask: Inotify.Flags = [.closeWrite, .modify, .attributes, .create, .delete, .movedFrom, .movedTo, .excludeUnlinked]

    /// Watches the work tree at `root`; `onChange` runs on a serial queue, once per batch of
    /// events that holds an edit, with the paths (relative to the root) the batch names; nil
    /// when the kernel dropped events.
    /// - Throws: ``ConcordError/io(_:reason:)`` when inotify cannot be used at all.
    init(root: String, onChange: @escaping @Sendable (Set<String>?) -> Void) throws {
        let tracker = Tracker(workTree: WorkTree(root: root))
        refusedFolders = tracker.refused
        writing = tracker.writing
        inotify = try Inotify(queue: DispatchQueue(label: "concord.work-tree")) { inotify, events in
            let edited = tracker.handle(events, inotify: inotify)
            if edited?.isEmpty != true { onChange(edited) }
        }
        tracker.watchFolder("", inotify: inotify)
    }

    /// Stops watching.
    func cancel() { inotify.cancel() }

    /// What the event handler keeps between batches.
    private final class Tracker: Sendable {
        let workTree: WorkTree
        /// Rename cookies of `.concord-tmp-` files moved away: the matching arrival is Concord's write.
        let ownRenames = Locked<[UInt32]>([])
        let refused = Locked(0)
        let writing = Locked<[String: ContinuousClock.Instant]>([:])

        /// The most files known to be written at once; past it, more are saved as they stand.
        static let mostWriting = 10_000

        init(workTree: WorkTree) { self.workTree = workTree }

        /// Watches `folder` (relative to the root; "" for the root) and every folder below it,
        /// noting the files in them some process has open for writing.
        func watchFolder(_ folder: String, inotify: Inotify) {
            let path = folder.isEmpty ? workTree.root : workTree.absolute(folder)
            switch inotify.watch(path, label: folder, mask: WorkTreeWatch.mask) {
            case .watched: break
            case .limitReached:
                refused.withLock { $0 += 1 }
                return
            case .refused:
                return  // gone already, or a link: nothing to watch
            }
            guard let descriptor = try? workTree.open(folder, creating: false), let names = try? descriptor.names() else { return }
            for name in names {
                if folder.isEmpty && ContainerLayout.isReservedAtRoot(name) { continue }
                let child = folder.isEmpty ? name : "\(folder)/\(name)"
                switch descriptor.status(of: name).map({ $0.st_mode & S_IFMT }) {
                case S_IFDIR: watchFolder(child, inotify: inotify)
                case S_IFREG where !name.hasPrefix(WorkTree.temporaryPrefix) && descriptor.isOpenForWriting(name):
                    // Opened before its folder was watched: its events were never seen.
                    writing.withLock { writing in
                        if writing[child] == nil, writing.count < Self.mostWriting { writing[child] = .now }
                    }
                default: break
                }
            }
        }

        /// Takes a batch of events: watches new folders; returns the paths that may hold an edit
        /// (nil: the kernel dropped events, anything may have changed).
        func handle(_ events: [Inotify.Event], inotify: Inotify) -> Set<String>? {
            var edited: Set<String>? = []
            for event in events {
                if event.isOverflow {
                    edited = nil
                    writing.withLock { $0.removeAll() }
                    continue
                }
                if event.folder == "" && ContainerLayout.isReservedAtRoot(event.name) { continue }
                if event.name.hasPrefix(WorkTree.temporaryPrefix) {
                    if event.has(.movedFrom) {
                        ownRenames.withLock { cookies in
                            cookies.append(event.cookie)
                            if cookies.count > 256 { cookies.removeFirst(cookies.count - 256) }
                        }
                    }
                    continue
                }
                if event.has(.movedTo), isOwnRename(event.cookie) { continue }
                if event.isDirectory && event.has([.create, .movedTo]) {
                    watchFolder(event.path, inotify: inotify)
                }
                if !event.isDirectory { noteWriting(event) }
                edited?.insert(event.path)
            }
            return edited
        }

        /// A file created or modified is being written until its writer closes it (or it goes).
        private func noteWriting(_ event: Inotify.Event) {
            let path = event.path
            writing.withLock { writing in
                if event.has([.closeWrite, .delete, .movedFrom]) {
                    writing[path] = nil
                } else if event.has([.create, .modify]), writing[path] == nil, writing.count < Self.mostWriting {
                    writing[path] = .now
                }
            }
        }

        private func isOwnRename(_ cookie: UInt32) -> Bool {
            ownRenames.withLock { cookies in
                guard let index = cookies.firstIndex(of: cookie) else { return false }
                cookies.remove(at: index)
                return true
            }
        }
    }
}
