/// What a command is called, what it does and what it takes: everything the parser and its help
/// need, written once beside the command.
struct CommandDescription: Sendable {
    /// The subcommand's name (`resolve`); the root's is `concord`.
    let name: String
    /// One line for the list of subcommands and the top of help.
    let abstract: String
    /// Paragraphs that help prints after the abstract; lines starting with a space are printed as
    /// they are (examples), other lines are wrapped.
    let discussion: String
    /// Its flags, options and arguments, in the order help lists them. The arguments are filled
    /// in this order.
    let parameters: [Parameter]

    /// Describes a command.
    init(name: String, abstract: String, discussion: String = "", parameters: [Parameter]) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.parameters = parameters
    }

    /// `concord NAME` (or `concord` for the root).
    var commandPath: String { name == "concord" ? name : "concord \(name)" }

    /// The flag or option named `name` (no dashes).
    func named(_ name: Substring) -> Parameter? {
        parameters.first { !$0.isArgument && $0.name == name }
    }

    /// The positional arguments, in order.
    var arguments: [Parameter] {
        parameters.filter(\.isArgument)
    }

    /// The usage line: every parameter unless that takes more than two lines, else
    /// `[<options>]` and the arguments; `concord <subcommand>` for the root.
    var usage: String {
        if name == "concord" { return "concord <subcommand>" }
        let full = ([commandPath] + parameters.map(\.usage)).joined(separator: " ")
        if full.count <= 2 * HelpText.width { return full }
        let options = parameters.contains { !$0.isArgument }
        return ([commandPath] + (options ? ["[<options>]"] : []) + arguments.map(\.usage)).joined(separator: " ")
    }

    /// The help `--help` prints: overview, discussion, usage, arguments, options and, for the
    /// root, `subcommands`.
    func help(subcommands: [CommandDescription] = []) -> String {
        var text = HelpText.wrap("OVERVIEW: \(abstract)") + "\n"
        if !discussion.isEmpty { text += "\n" + HelpText.wrapParagraphs(discussion) + "\n" }
        text += "\nUSAGE: \(usage)\n"
        let arguments = arguments
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n" + arguments.map { HelpText.entry($0.spelling, $0.help) }.joined()
        }
        let options = parameters.filter { !$0.isArgument }
        text += "\nOPTIONS:\n" + options.map { HelpText.entry($0.label, $0.help) }.joined()
        text += HelpText.entry("--version", "Show the version.") + HelpText.entry("-h, --help", "Show help information.")
        if !subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n" + subcommands.map { HelpText.entry($0.name, $0.abstract) }.joined()
            text += "\n  See 'concord help <subcommand>' for detailed help.\n"
        }
        return text
    }
}
