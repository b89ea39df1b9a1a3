import Concord
import FoundationEssentials
internal import ConcordMerge

struct KeyValueCommand: Subcommand {
    static let description = CommandDescription(
        name: "kv",
        abstract: "Read and write the container's key-value store.",
        discussion: """
            concord kv get KEY | set KEY JSON | rm KEY | ls [--json]. Keys are strings of at most 64 bytes, \
            values any JSON; at most 1,024 keys and 1 MB in all. The store syncs with the container; between \
            concurrent writes of a key the latest (by hybrid logical clock) wins.
            """,
        parameters: [
            GlobalOptions.parameter,
            .argument("action", help: "get, set, rm or ls."),
            .argument("key", help: "The key (for get, set, rm).", optional: true),
            .argument("value", help: "The JSON value (for set), for example '{\"theme\": \"dark\"}' or '42'.", optional: true),
            .flag("json", help: "With ls, print one JSON object of every key and value."),
        ]
    )

    enum Action: String, CaseIterable {
        case get, set, rm, ls
    }

    let global: GlobalOptions
    let action: Action
    let key: String?
    let value: String?
    let json: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        action = try arguments.argument("action", as: Action.self)
        key = arguments.value("key")
        value = arguments.value("value")
        json = arguments.flag("json")
        try validate()
    }

    private func validate() throws {
        switch action {
        case .get, .rm:
            guard key != nil, value == nil else { throw UsageError("kv \(action.rawValue) takes one KEY") }
        case .set:
            guard key != nil, value != nil else { throw UsageError("kv set takes KEY and JSON") }
        case .ls:
            guard key == nil else { throw UsageError("kv ls takes no key") }
        }
    }

    func run() async throws {
        let store = try global.openContainer().keyValueStore
        switch action {
        case .get:
            guard let data = try await store.value(forKey: key!) else { throw ConcordError.failed("no key '\(key!)' in the key-value store") }
            print(String(decoding: data, as: UTF8.self))
        case .set:
            try await store.set(Data(value!.utf8), forKey: key!)
        case .rm:
            try await store.removeValue(forKey: key!)
        case .ls:
            let values = try await store.dictionary()
            if json {
                let text = values.keys.sorted().map { key in
                    let quoted = String(decoding: JSONValue.string(key).text(style: .compact), as: UTF8.self)
                    return "  \(quoted): \(String(decoding: values[key]!, as: UTF8.self))"
                }.joined(separator: ",\n")
                print(values.isEmpty ? "{}" : "{\n\(text)\n}")
            } else {
                for key in values.keys.sorted() { print("\(key)\t\(String(decoding: values[key]!, as: UTF8.self))") }
            }
        }
    }
}
