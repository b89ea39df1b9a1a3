internal import CGit2
internal import GitStore

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
