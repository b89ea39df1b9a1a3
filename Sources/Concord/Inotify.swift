internal import FoundationEssentials
internal import Dispatch
internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#endif

/// One Linux inotify instance: folders watched by path, events read when the kernel has some
/// and handed to `handler` in batches, on a serial queue.
///
/// Reading goes through a Dispatch read source, so nothing runs while nothing happens: no
/// thread waits and no timer fires. The instance owns its descriptor and closes it when it is
/// cancelled or released. It is the one type that speaks to inotify: the watchers built on it
/// (``WorkTreeWatch``, ``ReferenceWatch``) use its ``Flags`` and ``WatchResult``.
final class Inotify: Sendable {
    /// The kinds of event a watch asks for, and an event carries.
    struct Flags: OptionSet, Sendable {
        let rawValue: UInt32

        static let open = Flags(IN_OPEN)
        static let modify = Flags(IN_MODIFY)
        static let attributes = Flags(IN_ATTRIB)
        static let closeWrite = Flags(IN_CLOSE_WRITE)
        static let closeNoWrite = Flags(IN_CLOSE_NOWRITE)
        static let create = Flags(IN_CREATE)
        static let delete = Flags(IN_DELETE)
        static let movedFrom = Flags(IN_MOVED_FROM)
        static let movedTo = Flags(IN_MOVED_TO)
        /// Asked for: no events for entries unlinked while open.
        static let excludeUnlinked = Flags(IN_EXCL_UNLINK)
        /// Carried: the entry is a folder.
        static let isDirectory = Flags(IN_ISDIR)
        /// Carried: the kernel's queue overflowed, events were dropped.
        static let overflow = Flags(IN_Q_OVERFLOW)

        init(rawValue: UInt32) { self.rawValue = rawValue }
        private init<Flag: BinaryInteger>(_ flag: Flag) { rawValue = UInt32(truncatingIfNeeded: flag) }
    }

    /// What came of asking for a watch.
    enum WatchResult: Sendable, Equatable {
        case watched
        /// The system's limit of inotify watches is reached.
        case limitReached
        /// Refused for another reason (no such folder, not a folder, a link), said in words.
        case refused(String)
    }

    /// One event: `folder` is the watched folder (as given to ``watch(_:label:mask:)``), `name` the
    /// entry in it (empty for the folder itself); an overflow of the kernel's queue has no folder.
    struct Event: Sendable {
        var folder: String?
        var name: String
        var flags: Flags
        var cookie: UInt32

        /// True when the event carries any of `flags`.
        func has(_ flags: Flags) -> Bool { !self.flags.isDisjoint(with: flags) }
        var isOverflow: Bool { has(.overflow) }
        var isDirectory: Bool { has(.isDirectory) }
        /// The entry's path below the watched root, for a watch added with a relative label.
        var path: String { folder.map { $0.isEmpty ? name : name.isEmpty ? $0 : "\($0)/\(name)" } ?? name }
    }

    private let descriptor: Int32
    private let source: Mutex<any DispatchSourceRead>
    /// The watched folder of each watch descriptor.
    private let folders = Locked<[Int32: String]>([:])

    /// Starts an instance whose events go to `handler` on `queue`, with the instance (to add
    /// watches for what the events reveal).
    /// - Throws: ``ConcordError/io(_:reason:)`` when the kernel refuses one (too many instances).
    init(queue: DispatchQueue, handler: @escaping @Sendable (Inotify, [Event]) -> Void) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw ConcordError.io("inotify", reason: "cannot watch for changes: \(String(cString: strerror(errno)))")
        }
        let descriptor = descriptor
        let folders = folders
        source = Mutex(DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue))
        source.withLock { source in
            source.setEventHandler { [weak self] in
                let events = Inotify.readEvents(descriptor, folders: folders)
                if let self, !events.isEmpty { handler(self, events) }
            }
            source.setCancelHandler { close(descriptor) }
            source.resume()
        }
    }

    deinit { cancel() }

    /// Stops reading and closes the descriptor (after a batch being handled, if any).
    func cancel() { source.withLock { $0.cancel() } }

    /// Watches `path` (a folder, never followed when it is a link) for the events in `mask`;
    /// `label` is what events give as their folder (default: `path`).
    /// - Returns: whether the kernel watches it, and why not.
    @discardableResult
    func watch(_ path: String, label: String? = nil, mask: Flags) -> WatchResult {
        let watch = inotify_add_watch(descriptor, path, mask.rawValue | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW))
        guard watch >= 0 else {
            let error = errno
            return error == ENOSPC ? .limitReached : .refused(String(cString: strerror(error)))
        }
        folders.withLock { $0[watch] = label ?? path }
        return .watched
    }

    /// Reads every event the kernel holds now (the descriptor does not block).
    private static func readEvents(_ descriptor: Int32, folders: Locked<[Int32: String]>) -> [Event] {
        var events: [Event] = []
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, capacity)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let watch = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let cookie = buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
                let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + header)..<min(count, offset + header + length)])
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += header + length
                let folder = folders.withLock { folders -> String? in
                    let folder = folders[watch]
                    if mask & UInt32(IN_IGNORED) != 0 { folders[watch] = nil }
                    return folder
                }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    events.append(Event(folder: nil, name: "", flags: Flags(rawValue: mask), cookie: 0))
                } else if let folder, mask & UInt32(IN_IGNORED) == 0 {
                    events.append(Event(folder: folder, name: name, flags: Flags(rawValue: mask), cookie: cookie))
                }
            }
        }
        return events
    }
}
