internal import Git
internal import GitFormat

/// Secrets of cloud URLs given on a command line (`clone https://user:PASSWORD@host/…`,
/// `init --remote …`), hidden from the process list: any user of the machine can read a
/// process's arguments (`ps`, `/proc/PID/cmdline`) for as long as it runs.
public enum ArgumentSecrets {
    /// Overwrites, in the arguments the system shows for this process, each one that holds a
    /// secret of a cloud URL (a password, a token given as the user name, a query's values,
    /// by the rule of every message Concord prints) with its printable form: `https://***@host/…`.
    /// An argument shorter than that form is shown as asterisks. The program's own copies
    /// (`CommandLine.arguments`) keep the secret, so the command runs as given. Call it first
    /// thing: the secret is visible until then. It stays in the shell's history, which the
    /// environment (`CONCORD_CLOUD_PASSWORD`) avoids.
    /// - Returns: how many arguments were overwritten.
    @discardableResult
    public static func hideFromProcessList() -> Int {
        var hidden = 0
        for (index, argument) in CommandLine.arguments.enumerated().dropFirst() {
            let shown = CloudText.redacted(argument)
            if shown.sameBytes(as: argument) { continue }
            let replacement = shown.utf8.count <= argument.utf8.count ? shown : String(repeating: "*", count: argument.utf8.count)
            if ProcessArguments.overwrite(at: index, with: replacement) { hidden += 1 }
        }
        return hidden
    }
}
