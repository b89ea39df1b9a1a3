import ConcordCLI

await ConcordCommand.run(arguments: Array(CommandLine.arguments.dropFirst()))
