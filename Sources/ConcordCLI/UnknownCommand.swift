/// A command line whose subcommand (or the name after `help`) is no command of `concord`: bad
/// usage, told in one line with the command that was probably meant (`concord sycn`: did you
/// mean 'sync'?).
struct UnknownCommand: Error, CustomStringConvertible {
    /// The name as typed.
    let name: String
    /// The command it is closest to, when one is close enough.
    let suggestion: String?

    var description: String {
        "unknown command '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? " (see 'concord --help')")
    }

    /// The unknown command `arguments` name, skipping leading `-C PATH`; nil when the first word
    /// is an option or one of `commands`, or, after `help`, when no name follows or it is one of them.
    static func find(in arguments: [String], commands: [String]) -> UnknownCommand? {
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("-C") {
            rest = rest.dropFirst(first == "-C" ? 2 : 1)
        }
        guard var name = rest.first, !name.hasPrefix("-") else { return nil }
        if name == "help" {
            guard let next = rest.dropFirst().first, !next.hasPrefix("-") else { return nil }
            name = next
        }
        if commands.contains(name) || name == "help" { return nil }
        return UnknownCommand(name: name, suggestion: closest(to: name, among: commands))
    }

    /// The command nearest to `name` by edits (a letter added, removed, changed, or two
    /// neighbours swapped): at most one for names of up to four letters, two for longer; the
    /// first in alphabetical order among equals. Nil when none is that close.
    static func closest(to name: String, among commands: [String]) -> String? {
        let bound = name.count <= 4 ? 1 : 2
        let ranked = commands.map { (command: $0, distance: distance(name, $0)) }.filter { $0.distance <= bound }
        return ranked.min { ($0.distance, $0.command) < ($1.distance, $1.command) }?.command
    }

    /// The optimal string alignment distance between `a` and `b`: insertions, deletions,
    /// substitutions and swaps of two neighbours, each one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
