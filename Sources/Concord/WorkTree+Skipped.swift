internal import FoundationEssentials
#if canImport(Glibc)
internal import Glibc
#endif

/// What a save leaves out of the work tree, found without reading any file: names and sizes.
extension WorkTree {
    /// The entries of the work tree no save takes (``SkippedFile``): files over `sizeLimit`
    /// bytes, symbolic links, entries that are neither files nor folders, invalid names.
    /// Folders are walked with a stack (no recursion), links never followed; `.git`, `.concord`
    /// and Concord's temporary files are not looked at. Sorted by path.
    func skippedFiles(sizeLimit: Int, describeSize: (Int, String) -> String) -> [SkippedFile] {
        var result: [SkippedFile] = []
        var folders = [""]
        while let folder = folders.popLast() {
            guard let descriptor = try? open(folder, creating: false), let names = try? descriptor.names() else { continue }
            for name in names where !name.hasPrefix(Self.temporaryPrefix) {
                if folder.isEmpty && ContainerLayout.isReservedAtRoot(name) { continue }
                let path = folder.isEmpty ? name : "\(folder)/\(name)"
                guard let info = descriptor.status(of: name), !name.contains("\u{FFFD}") else {
                    result.append(SkippedFile(path: path, reason: .invalidName, detail: "not a valid document name (not UTF-8)"))
                    continue
                }
                do {
                    _ = try DocumentPath(path)
                } catch {
                    result.append(SkippedFile(path: path, reason: .invalidName, detail: "\(error)"))
                    continue
                }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    folders.append(path)
                case S_IFREG where Int(info.st_size) > sizeLimit:
                    result.append(SkippedFile(path: path, reason: .overLimit, detail: describeSize(Int(info.st_size), path)))
                case S_IFREG:
                    continue
                case S_IFLNK:
                    result.append(SkippedFile(path: path, reason: .symbolicLink, detail: "a symbolic link; links are never followed"))
                default:
                    result.append(SkippedFile(path: path, reason: .notARegularFile, detail: "not a regular file or folder"))
                }
            }
        }
        return result.sorted { $0.path < $1.path }
    }
}
