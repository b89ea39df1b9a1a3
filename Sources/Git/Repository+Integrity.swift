internal import CGit2
internal import Foundation
internal import GitFormat
internal import GitStore

extension Repository {
    /// Throws instead of letting libgit2 read a damaged loose object.
    ///
    /// libgit2 1.5 loops forever on a truncated loose object (libgit2 issue 7342), so before a
    /// lookup the object's file, when it is loose, is checked to hold one complete zlib stream.
    /// Packed objects are checked by libgit2 itself, which reads an object from a pack before
    /// looking for its file: an object a pack's index lists needs no check.
    /// - Throws: ``GitError`` naming the object and its file.
    func ensureReadable(_ id: OID, _ function: String) throws {
        // A cloud's objects are read by Concord's own readers, which check every one.
        guard objectFolder == nil, !verifiedObjects.contains(id) else { return }
        if storedPacks.contains(id) {
            verifiedObjects.insert(id)
            return
        }
        let hex = id.hex
        let path = "\(gitDirectory)objects/\(hex.prefix(2))/\(hex.dropFirst(2))"
        guard access(path, F_OK) == 0 else {
            verifiedObjects.insert(id)
            return
        }
        if concord_zlib_file_is_complete(path) != 1 {
            throw GitError(
                code: GIT_ERROR.rawValue, errorClass: Int32(GIT_ERROR_ZLIB.rawValue),
                message: "object \(hex) is damaged: its file \(path) is truncated or corrupt", function: function)
        }
        verifiedObjects.insert(id)
    }
}

extension Repository {
    /// Runs `body`; when it reports a missing object, adds what may explain it: the packs of
    /// this repository that could not be read (damaged, or not regular files).
    func explainingMissing(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as GitError where error.isNotFound {
            let suffix = storedPacks.problemsSuffix
            guard !suffix.isEmpty else { throw error }
            throw GitError(code: error.code, errorClass: error.errorClass, message: error.message + suffix, function: error.function)
        }
    }
}
