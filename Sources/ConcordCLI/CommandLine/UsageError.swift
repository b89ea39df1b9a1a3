/// Bad usage of a command: printed with the command's usage line (and the help of the parameter
/// it is about), exit 2.
struct UsageError: Error {
    /// What is wrong, as one sentence.
    let message: String
    /// The parameter the message is about, whose help is shown.
    let parameter: Parameter?

    /// A usage error; `parameter` is the one it is about, when one is.
    init(_ message: String, about parameter: Parameter? = nil) {
        self.message = message
        self.parameter = parameter
    }

    /// The lines printed on standard error for a use of `command`, ending with a newline.
    func report(for command: CommandDescription) -> String {
        var text = "Error: \(message)\n"
        if let parameter { text += "Help:  \(parameter.label)  \(parameter.help)\n" }
        return text + "Usage: \(command.usage)\n  See '\(command.commandPath) --help' for more information.\n"
    }
}

/// A request for help or the version instead of a command run: printed on standard output, exit 0.
enum HelpRequest: Error {
    /// `--help`, `-h` or `help NAME`: the command's help.
    case help(CommandDescription)
    /// `--version`.
    case version
}

/// A command's chosen exit status, with nothing more to print (`merge-file` exits as a git merge
/// driver does).
struct ExitStatus: Error {
    /// The status the process exits with.
    let code: Int32
}
