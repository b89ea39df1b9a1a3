internal import FoundationEssentials
internal import Git
internal import Glibc

/// The mark of a clone under way: a file in the new device's git folder from the moment the
/// repository exists until the device is configured. A clone killed meanwhile leaves a folder
/// holding only that repository; the mark says it is Concord's and unfinished, so that cloning
/// again into the same folder replaces it instead of refusing a folder that is not empty.
enum UnfinishedClone {
    private static let name = "concord-clone-unfinished"

    /// Marks `repository` as a clone under way.
    static func mark(_ repository: Repository) throws {
        guard FileManager.default.createFile(atPath: repository.gitDirectory + name, contents: Data()) else {
            throw GitError(message: "cannot write \(repository.gitDirectory)\(name)", function: "createFile")
        }
    }

    /// Removes the mark: the clone is a device now.
    static func unmark(_ repository: Repository) {
        unlink(repository.gitDirectory + name)
    }

    /// True when the folder `path` holds nothing but the repository of a clone that was killed
    /// before it configured the device.
    static func isLeft(at path: String) -> Bool {
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        var status = stat()
        return contents == [".git"] && lstat("\(path)/.git/\(name)", &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
