import ConcordMerge
import Foundation

/// An app's own merge rule for its `.todo` lists, one task a line (`[ ] buy milk`, `[x] call
/// Anna`): every task any device added is kept, a task removed on one device and untouched on
/// the other goes, and a task ticked anywhere is done. Order: the ancestor's, then each
/// version's new tasks in canonical order.
public struct TodoPolicy: MergePolicy {
    public let name = "todo"

    public init() {}

    public func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        guard let lists = try? versions.map({ try Self.tasks($0.content) }), let ancestor = try? Self.tasks(base) else {
            return .needsPerson(reason: "a version is not a to-do list (UTF-8 lines)", markedUp: nil)
        }
        let ancestorNames = Set(ancestor.map(\.name))
        var order: [String] = ancestor.map(\.name)
        for list in lists {
            for task in list where !order.contains(task.name) { order.append(task.name) }
        }
        let kept = order.filter { name in
            // An ancestor's task stays only while every version still holds it.
            !ancestorNames.contains(name) || lists.allSatisfy { $0.contains { $0.name == name } }
        }
        let lines = kept.map { name in
            let done = lists.contains { $0.contains { $0.name == name && $0.done } }
            return (done ? "[x] " : "[ ] ") + name
        }
        return .merged(.file(Data(lines.map { $0 + "\n" }.joined().utf8)))
    }

    struct Task: Equatable {
        var name: String
        var done: Bool
    }

    static func tasks(_ content: DocumentContent?) throws -> [Task] {
        guard let content else { return [] }
        guard case let .file(data) = content, let text = String(data: data, encoding: .utf8) else { throw CocoaError(.fileReadInapplicableStringEncoding) }
        return text.split(separator: "\n").map { line in
            if line.hasPrefix("[x] ") { return Task(name: String(line.dropFirst(4)), done: true) }
            if line.hasPrefix("[ ] ") { return Task(name: String(line.dropFirst(4)), done: false) }
            return Task(name: String(line), done: false)
        }
    }
}
