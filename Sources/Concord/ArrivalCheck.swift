internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitStore
internal import GitFormat

/// What arrives from the cloud is input, like what a person types: every tree entry of the
/// commits a sync or a clone receives is checked before any of it is written or `main` moves
/// (git's `transfer.fsckObjects` is the model). A commit that fails is refused whole.
///
/// Refused: names ``PathRules`` refuses (`..`, `.git` and its disguises, `/`, control
/// characters, names too long), symbolic links and submodule links (a document could follow
/// them out of the container), modes Concord never writes, a `.concord` folder of another shape
/// than Concord's records, blobs larger than the limits, and commits larger than
/// ``Limits/commitSize`` (their messages, which Concord parses).
struct ArrivalCheck {
    /// The limits on what one sync or clone may receive.
    struct Limits: Equatable {
        /// The largest object (a document, or a file of a package), in bytes.
        var objectSize: Int
        /// The most bytes of new file content one sync or clone may write, inflated: each path a
        /// file arrives under counts.
        var totalSize: Int
        /// True when the device's own setting fixed ``objectSize``, not the container's.
        var fixedByDevice = false

        static let defaultObjectSize = 100 << 20
        static let defaultTotalSize = 2 << 30

        /// The largest commit, in bytes: its message, with the lines of its tree, parents and
        /// signatures. Reading a message costs time and memory in proportion to its size (every
        /// trailer group names a document whose versions are then looked up), so a bound is
        /// needed; it is fixed, the same on every device. It is set far above what Concord
        /// writes: its largest messages name every document a commit resolved or kept as the
        /// same content on both sides (about 100 bytes each, so 16 MiB is some 150,000
        /// documents in one commit), and a device that refused a commit another device wrote
        /// in good faith could never sync again. ``CommitMaker`` refuses to write past it.
        static let commitSize = 16 << 20

        /// The limits from the environment (`CONCORD_MAX_OBJECT_SIZE`, `CONCORD_MAX_ARRIVAL_SIZE`),
        /// else the device's configuration (`concord.maxObjectSize`, `concord.maxArrivalSize`),
        /// else the container's file size (`containerFileSize`, from ``ContainerLimits``) up to
        /// ``ContainerLimits/ceiling``, else the defaults (100 MB and 2 GB). Sizes take a `k`, `m`
        /// or `g` suffix.
        static func current(in repository: Repository?, containerFileSize: Int? = nil) throws -> Limits {
            func value(_ variable: String, _ key: String, _ fallback: Int) throws -> Int {
                let text = ProcessVariable.value(variable) ?? (try? repository?.config(key)) ?? nil
                guard let text else { return fallback }
                guard let size = parseSize(text) else {
                    throw ConcordError.failed("invalid size '\(text)' for \(variable) / \(key): give bytes, or a number with k, m or g")
                }
                return size
            }
            let containers = min(containerFileSize ?? defaultObjectSize, ContainerLimits.ceiling)
            return Limits(
                objectSize: try value("CONCORD_MAX_OBJECT_SIZE", DeviceSettings.maxObjectSizeKey, containers),
                totalSize: try value("CONCORD_MAX_ARRIVAL_SIZE", DeviceSettings.maxArrivalSizeKey, defaultTotalSize),
                fixedByDevice: deviceFixesObjectSize(in: repository))
        }

        /// True when this device's own setting (environment or configuration) fixes the file
        /// size, whatever the container says.
        static func deviceFixesObjectSize(in repository: Repository?) -> Bool {
            ProcessVariable.value("CONCORD_MAX_OBJECT_SIZE") != nil || ((try? repository?.config(DeviceSettings.maxObjectSizeKey)) ?? nil) != nil
        }

        /// `300m`, `2g`, `1500k` or bytes: the shortest exact form ``parseSize(_:)`` reads back.
        static func sizeText(_ size: Int) -> String {
            for (shift, suffix) in [(30, "g"), (20, "m"), (10, "k")] where size % (1 << shift) == 0 { return "\(size >> shift)\(suffix)" }
            return "\(size)"
        }

        /// Parses `1024`, `64k`, `100m`, `2g` (powers of 1024); nil when malformed or absurd.
        static func parseSize(_ text: String) -> Int? {
            let trimmed = text.trimmingSpaces().lowercased()
            guard let last = trimmed.last else { return nil }
            let shift: Int =
                switch last {
                case "k": 10
                case "m": 20
                case "g": 30
                default: 0
                }
            guard let number = Int(shift == 0 ? trimmed : String(trimmed.dropLast())), number > 0,
                number <= Int(Int32.max)
            else { return nil }
            return number << shift
        }

        /// Refuses a file of `size` bytes that other devices would refuse from the cloud, so that
        /// no device saves what the others refuse.
        /// - Throws: ``ConcordError/io(_:reason:)`` naming the limit and the settings that raise it.
        func checkSize(_ size: Int, of path: String) throws {
            if size > objectSize {
                throw ConcordError.io(path, reason: "\(ArrivalCheck.format(size)) is \(overTheLimit(size))")
            }
        }

        /// "over the container's limit of 100 MB for one file (…raises it for every device)":
        /// which limit, and the command or setting that raises it.
        func overTheLimit(_ size: Int) -> String {
            let limit = ArrivalCheck.format(objectSize)
            if fixedByDevice {
                return "over this device's limit of \(limit) for one file (CONCORD_MAX_OBJECT_SIZE or concord.maxObjectSize set it on this device)"
            }
            if objectSize >= ContainerLimits.ceiling {
                return "over the limit of \(limit) for one file that a device accepts on the container's word (this device's concord.maxObjectSize goes past it)"
            }
            let raised = ArrivalCheck.Limits.sizeText(((size >> 20) + 1) << 20)
            return "over the container's limit of \(limit) for one file ('concord limits --file-size \(raised)' raises it for every device)"
        }
    }

    let limits: Limits

    /// Checks every commit reachable from `tips` and not from `known`, then every entry they
    /// introduce. The total counts what a checkout would write: every entry's size, so that one
    /// file named under many paths counts once for each (its object arrives once).
    /// - Throws: ``ConcordError/refusedCommitFromCloud(commit:reason:)`` for a commit over
    ///   ``Limits/commitSize``, before anything parses its message;
    ///   ``ConcordError/refusedFromCloud(commit:path:reason:)`` for the first entry refused.
    func check(_ repository: Repository, from tips: [OID], hiding known: [OID]) throws {
        var sizes: [OID: Int] = [:]
        var total = 0
        do {
            try repository.walk(from: tips, hiding: known.filter(repository.contains)) { commit in
                // The size in the object's header (of any kind of object, not only a blob's).
                let size = try repository.blobSize(commit)
                if size > Limits.commitSize {
                    throw ConcordError.refusedCommitFromCloud(
                        commit: commit.short, reason: "it is \(Self.format(size)), over the limit of \(Self.format(Limits.commitSize)) for one commit and its message")
                }
                return true
            }
            try repository.forEachArrivingEntry(from: tips, hiding: known) { arriving in
                if let reason = try problem(with: arriving, repository: repository) {
                    throw ConcordError.refusedFromCloud(commit: arriving.commit.short, path: arriving.path, reason: reason)
                }
                guard arriving.entry.kind == .blob else { return }
                let size = try sizes[arriving.entry.id] ?? repository.blobSize(arriving.entry.id)
                sizes[arriving.entry.id] = size
                total += size
                if size > limits.objectSize {
                    throw ConcordError.refusedFromCloud(commit: arriving.commit.short, path: arriving.path, reason: "\(Self.format(size)), \(limits.overTheLimit(size))")
                }
                if total > limits.totalSize {
                    throw ConcordError.refusedFromCloud(
                        commit: arriving.commit.short, path: arriving.path,
                        reason:
                            "past the limit of \(Self.format(limits.totalSize)) of new content in one transfer, counting each path a file is written to (CONCORD_MAX_ARRIVAL_SIZE or concord.maxArrivalSize raise it)"
                    )
                }
            }
        } catch let error as GitError {
            throw ConcordError.git(error.message, context: "refused what the cloud sent (nothing was written)")
        }
    }

    /// Why an arriving entry cannot be taken; nil when it can.
    private func problem(with arriving: ArrivingEntry, repository: Repository) throws -> String? {
        let entry = arriving.entry
        if let problem = PathRules.problem(withName: Substring(entry.name)) { return problem }
        let path = arriving.path
        if path.utf8.count > PathRules.maximumPathLength {
            return "a path of \(path.utf8.count) bytes (at most \(PathRules.maximumPathLength))"
        }
        if let problem = PathRules.slashProblem(path) { return problem }
        switch entry.mode {
        case TreeEntry.fileMode, TreeEntry.executableMode, TreeEntry.treeMode: break
        case 0o120000: return "a symbolic link; links are never written, so that no document can lead out of the container"
        case 0o160000: return "a submodule link, which Concord never writes"
        default: return "an entry of mode \(String(entry.mode, radix: 8)), which Concord never writes"
        }
        let components = path.slashSeparated()
        guard components.first.map(String.init) == ContainerLayout.settingsFolder else { return nil }
        let isFolder = entry.kind == .tree
        let inRecords = components.count >= 2 && (components[1] == "conflicts" || components[1] == "kv")
        switch (components.count, inRecords) {
        case (1, _), (2, true):
            return isFolder ? nil : "one of Concord's records folders, sent as a file"
        case (2, false), (3, true):
            return isFolder ? "a folder where Concord keeps only record files" : nil
        default:
            return "a folder where Concord keeps only record files"
        }
    }

    static func format(_ bytes: Int) -> String {
        ByteCount.text(bytes)
    }
}
