import ArgumentParser
import Concord
import Foundation

struct KeyValueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv",
        abstract: "Read and write the container's key-value store.",
        discussion: """
            concord kv get KEY | set KEY JSON | rm KEY | ls [--json]. Keys are strings of at most 64 bytes, \
            values any JSON; at most 1,024 keys and 1 MB in all. The store syncs with the container; between \
            concurrent writes of a key the latest (by hybrid logical clock) wins.
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case get, set, rm, ls
    }

    @OptionGroup var global: GlobalOptions

    @Argument(help: "get, set, rm or ls.")
    var action: Action

    @Argument(help: "The key (for get, set, rm).")
    var key: String?

    @Argument(help: "The JSON value (for set), for example '{\"theme\": \"dark\"}' or '42'.")
    var value: String?

    @Flag(help: "With ls, print one JSON object of every key and value.")
    var json = false

    func validate() throws {
        switch action {
        case .get, .rm:
            guard key != nil, value == nil else { throw ValidationError("kv \(action.rawValue) takes one KEY") }
        case .set:
            guard key != nil, value != nil else { throw ValidationError("kv set takes KEY and JSON") }
        case .ls:
            guard key == nil else { throw ValidationError("kv ls takes no key") }
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
                    let quoted = String(decoding: (try? JSONSerialization.data(withJSONObject: key, options: [.fragmentsAllowed])) ?? Data(), as: UTF8.self)
                    return "  \(quoted): \(String(decoding: values[key]!, as: UTF8.self))"
                }.joined(separator: ",\n")
                print(values.isEmpty ? "{}" : "{\n\(text)\n}")
            } else {
                for key in values.keys.sorted() { print("\(key)\t\(String(decoding: values[key]!, as: UTF8.self))") }
            }
        }
    }
}
