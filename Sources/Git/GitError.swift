internal import CGit2
internal import FoundationEssentials
internal import GitStore

/// An error reported by libgit2, with the name of the call that failed.
public struct GitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libgit2 return code (``Code/notFound``, ``Code/nonFastForward``, …), or one of
    /// Concord's own (``Code/timeout``, ``Code/overLimit``, ``Code/oversizedAnswer``).
    public let code: Code
    /// The libgit2 error class (``Class/os``, ``Class/net``, …).
    public let errorClass: Class
    /// The message libgit2 gave, or a description of the failure.
    public let message: String
    /// The libgit2 function whose call failed.
    public let function: String

    /// Creates an error for a failure that did not come from a libgit2 return code.
    public init(code: Code = .generic, errorClass: Class = .none, message: String, function: String) {
        self.code = code
        self.errorClass = errorClass
        self.message = message
        self.function = function
    }

    /// True when libgit2 reported that the object or reference does not exist.
    public var isNotFound: Bool { code == .notFound }

    /// True when a push or reference update was refused because it was not a fast-forward,
    /// or a compare-and-swap update found the reference moved.
    public var isNotFastForward: Bool {
        code == .nonFastForward || code == .modified
    }

    /// True when libgit2 could not reach the remote (a network or OS error during transport).
    public var isNetwork: Bool {
        [.net, .os, .ssh, .http, .ssl].contains(errorClass)
    }

    /// True when an object was refused for claiming more than a limit allows: by Concord's
    /// readers, or by libgit2's indexer (a delta rebuilding more than
    /// `GIT_OPT_SET_PACK_MAX_OBJECT_SIZE`, which Concord sets to its limit for each fetch).
    public var isOverLimit: Bool { code == .overLimit || message.contains("overly large object") }

    /// "claims 3 GB, over the limit of 100 MB": the end of an over-limit message.
    static func overLimit(_ size: Int, _ limit: Int) -> String {
        "claims \(ByteCount.text(size)), over the limit of \(ByteCount.text(limit))"
    }

    public var description: String { "\(message) (\(function), code \(code))" }
}

/// The one chokepoint from a libgit2 return code to a Swift error.
///
/// Reads `git_error_last()` at once, on the calling thread, as libgit2 keeps it per thread.
/// Every call into libgit2 starts it first (``Libgit2/ensure()``): a repository's handle does
/// (``Repository/pointer``), and so does each call that takes none.
/// - Throws: ``GitError`` when the call returned a negative code.
func check(_ function: String, _ result: Int32) throws(GitError) {
    _ = try checked(function, result)
}

/// ``check(_:_:)`` for calls whose non-negative result means something.
/// - Returns: the (non-negative) result of the call.
func checked(_ function: String, _ result: Int32) throws(GitError) -> Int32 {
    guard result < 0 else { return result }
    var message = "libgit2 call failed"
    var errorClass = GitError.Class.none
    if let last = git_error_last() {
        errorClass = GitError.Class(rawValue: last.pointee.klass)
        if let text = last.pointee.message {
            message = String(cString: text).trimmingSuffix()
        }
    }
    git_error_clear()
    throw GitError(code: GitError.Code(rawValue: result), errorClass: errorClass, message: message, function: function)
}

extension String {
    fileprivate func trimmingSuffix() -> String {
        var text = self
        while let last = text.last, last == "\n" || last == " " { text.removeLast() }
        return text
    }
}
