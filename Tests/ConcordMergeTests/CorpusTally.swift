import ConcordMerge
import Foundation

/// How each merger did on the corpus, per set, kind and stratum, and the markdown tables of
/// `docs/merge-corpus.md` that show it (written, and read back to be checked).
struct CorpusTally {
    /// One table: a set of the corpus and a kind of file.
    struct Section: Hashable {
        var set: String
        var kind: String

        var title: String {
            "\(set == "heldout" ? "Held-out repositories" : "Development repositories"), \(kind == "json" ? "JSON" : "text") files"
        }
    }

    /// The counts of one merger on one stratum.
    struct Counts {
        var cases = 0
        var merged = 0
        var equalBytes = 0
        var equalJSON = 0
    }

    /// One cell of a table: its section title, the merger (row) and the column.
    struct Cell: Hashable, CustomStringConvertible {
        var section: String
        var merger: String
        var column: String

        var description: String { "\(section) / \(merger) / \(column)" }
    }

    static let strata = ["clean", "conflict"]
    private(set) var counts: [Section: [String: [String: Counts]]] = [:]
    private(set) var strataSizes: [Section: [String: Int]] = [:]

    /// Counts `output` (nil: the merger needed a person) for `item`.
    mutating func record(_ item: CorpusCase, merger: String, output: Data?) {
        let section = Section(set: item.set, kind: item.kind)
        var tally = counts[section, default: [:]][merger, default: [:]][item.stratum, default: Counts()]
        tally.cases += 1
        if let output {
            tally.merged += 1
            if output == item.merged { tally.equalBytes += 1 }
            if item.kind == "json", let left = try? JSONValue(parsing: output), let right = try? JSONValue(parsing: item.merged),
                left == right
            {
                tally.equalJSON += 1
            }
        }
        counts[section, default: [:]][merger, default: [:]][item.stratum] = tally
        strataSizes[section, default: [:]][item.stratum] = tally.cases
    }

    /// The number of cases of a stratum in the table titled `title`.
    func stratumSize(title: String, stratum: String) -> Int {
        strataSizes.first { $0.key.title == title }?.value[stratum] ?? 0
    }

    /// The counts of `merger` on a stratum.
    func counts(set: String, kind: String, stratum: String, merger: String) -> Counts {
        counts[Section(set: set, kind: kind)]?[merger]?[stratum] ?? Counts()
    }

    private static func columns(kind: String) -> [(name: String, stratum: String, value: (Counts) -> (Int, Int))] {
        var columns: [(String, String, (Counts) -> (Int, Int))] = []
        for stratum in strata {
            let label = "git-\(stratum)"
            columns.append(("\(label) merged", stratum, { ($0.merged, $0.cases) }))
            columns.append(("\(label) equal", stratum, { ($0.equalBytes, $0.merged) }))
            if kind == "json" { columns.append(("\(label) equal as JSON", stratum, { ($0.equalJSON, $0.merged) })) }
        }
        return columns
    }

    /// The tables, one per set and kind, mergers in the order given.
    func markdown(mergers: [String]) -> String {
        var text = ""
        for section in counts.keys.sorted(by: { ($0.set, $0.kind) < ($1.set, $1.kind) }) {
            let sizes = strataSizes[section, default: [:]]
            let total = sizes.values.reduce(0, +)
            text += "### \(section.title) (\(total) merges: \(sizes["clean", default: 0]) git-clean, "
            text += "\(sizes["conflict", default: 0]) git-conflict)\n\n"
            let columns = CorpusTally.columns(kind: section.kind)
            text += "| merger | " + columns.map(\.name).joined(separator: " | ") + " |\n"
            text += "|---|" + String(repeating: "---:|", count: columns.count) + "\n"
            for merger in mergers {
                guard let strata = counts[section]?[merger] else { continue }
                let cells = columns.map { column -> String in
                    let (count, of) = column.value(strata[column.stratum] ?? Counts())
                    return of == 0 ? "0/0 (–)" : "\(count)/\(of) (\(Int((100 * Double(count) / Double(of)).rounded(.down)))%)"
                }
                text += "| `\(merger)` | " + cells.joined(separator: " | ") + " |\n"
            }
            text += "\n"
        }
        return text
    }

    /// Every `count/of` cell of tables written by ``markdown(mergers:)`` found in `text`.
    static func cells(in text: String) -> [Cell: (count: Int, of: Int)] {
        var cells: [Cell: (Int, Int)] = [:]
        var section: String?
        var columns: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("### ") {
                section = line.dropFirst(4).split(separator: "(").first.map { $0.trimmingCharacters(in: .whitespaces) }
                columns = []
                continue
            }
            guard let section, line.hasPrefix("|") else { continue }
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = fields.first else { continue }
            if first == "merger" {
                columns = Array(fields.dropFirst())
                continue
            }
            let merger = first.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            for (column, field) in zip(columns, fields.dropFirst()) {
                let numbers = field.split(separator: " ").first?.split(separator: "/").compactMap { Int($0) } ?? []
                if numbers.count == 2 { cells[Cell(section: section, merger: merger, column: column)] = (numbers[0], numbers[1]) }
            }
        }
        return cells
    }
}
