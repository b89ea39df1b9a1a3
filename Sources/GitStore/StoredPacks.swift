internal import FoundationEssentials
internal import Glibc
package import GitFormat

/// A repository's packs, each opened as a ``StoredPack``, to find where an object is stored
/// and read its entry without libgit2. The listing is read again when the pack folder has
/// changed since (a pack stored or rolled up); a pack removed meanwhile stays readable through
/// its open file until then.
package final class StoredPacks {
    private let folder: String
    private let afterListing: () -> Void
    private var opened: [(name: String, pack: StoredPack)] = []
    private var listed: timespec?
    /// The packs that could not be opened at the last listing, with why: their objects are
    /// missing, and messages about a missing object say so.
    private(set) var problems: [(name: String, error: StoreError)] = []

    /// The packs of the folder `folder` (a repository's `objects/pack/`); `afterListing` runs
    /// each time the folder is listed (the repository has libgit2 list it too, so that libgit2
    /// knows every pack listed here).
    package init(folder: String, afterListing: @escaping () -> Void = {}) {
        self.folder = folder
        self.afterListing = afterListing
    }

    /// The pack and entry that hold `id`; nil when no pack does (the object is loose, held in
    /// memory, or missing) or the packs cannot be read.
    package func locate(_ id: OID) -> (pack: StoredPack, entry: StoredPack.Entry)? {
        if let found = search(id) { return found }
        return refreshIfChanged() ? search(id) : nil
    }

    /// True when the index of a pack listed so far lists `id` (the folder is listed first if
    /// it never was). A pack stored since is not looked for: false proves nothing.
    package func contains(_ id: OID) -> Bool {
        if listed == nil { _ = refreshIfChanged() }
        return opened.contains { $0.pack.contains(id) }
    }

    /// The pack `name` (`pack-….pack`) of the folder, opened once and shared with lookups.
    /// - Throws: ``StoreError`` when it cannot be read.
    package func pack(named name: String) throws -> StoredPack {
        if let open = opened.first(where: { $0.name == name }) { return open.pack }
        let pack = try StoredPack(stem: folder + name.dropLast(".pack".count))
        opened.append((name, pack))
        return pack
    }

    private func search(_ id: OID) -> (pack: StoredPack, entry: StoredPack.Entry)? {
        for (_, pack) in opened {
            if let entry = try? pack.entry(of: id) { return (pack, entry) }
        }
        return nil
    }

    /// What to add to a message about a missing object: the packs that could not be read.
    package var problemsSuffix: String {
        if listed == nil { _ = refreshIfChanged() }
        guard let first = problems.first else { return "" }
        return " (\(problems.count == 1 ? "a pack" : "\(problems.count) packs") could not be read: \(first.error.message))"
    }

    /// Lists the folder again when it changed since the last listing; true when it did.
    package func refreshIfChanged() -> Bool {
        var status = stat()
        guard stat(folder, &status) == 0 else { return false }
        if let listed, listed.tv_sec == status.st_mtim.tv_sec, listed.tv_nsec == status.st_mtim.tv_nsec { return false }
        listed = status.st_mtim
        let names = RegularFile.names(in: folder).filter { $0.hasPrefix("pack-") && $0.hasSuffix(".pack") }
        let known = Dictionary(opened.map { ($0.name, $0.pack) }, uniquingKeysWith: { first, _ in first })
        problems = []
        opened = names.sorted().compactMap { name in
            if let pack = known[name] { return (name, pack) }
            do {
                return (name, try StoredPack(stem: folder + name.dropLast(".pack".count)))
            } catch let error as StoreError {
                problems.append((name, error))
            } catch {
                problems.append((name, StoreError(.damaged, "\(error)")))
            }
            return nil
        }
        afterListing()
        return true
    }
}
