/// This process's arguments as the system shows them to every user (`ps`, `/proc/PID/cmdline`):
/// the bytes of the real `argv`, which the kernel reads from the process's memory each time it
/// is asked. `CommandLine.arguments` are Swift's copies: overwriting the originals hides what
/// they held from other processes and changes nothing the program reads (curl hides a password
/// given with `-u` the same way).
public enum ProcessArguments {
    /// Overwrites the argument at `index` (0 is the program) in the memory the system shows:
    /// the bytes of `replacement`, then NULs up to the argument's old length. Swift's copies
    /// are made first, if they were not already.
    /// - Returns: false, with nothing changed, when there is no such argument or `replacement`
    ///   is longer than it (the system's copy cannot grow in place).
    @discardableResult
    public static func overwrite(at index: Int, with replacement: String) -> Bool {
        _ = CommandLine.arguments
        guard index >= 0, index < Int(CommandLine.argc), let argument = CommandLine.unsafeArgv[index] else { return false }
        var length = 0
        while argument[length] != 0 { length += 1 }
        let bytes = Array(replacement.utf8)
        guard bytes.count <= length, !bytes.contains(0) else { return false }
        for offset in 0..<length {
            argument[offset] = offset < bytes.count ? CChar(bitPattern: bytes[offset]) : 0
        }
        return true
    }
}
