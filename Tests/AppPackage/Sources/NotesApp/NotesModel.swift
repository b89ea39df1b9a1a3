import Concord
import ConcordMerge
import Foundation

/// Settings an app keeps in the key-value store.
public struct Settings: Codable, Sendable, Equatable {
    public var theme: String
    public var fontSize: Double

    public init(theme: String, fontSize: Double) {
        self.theme = theme
        self.fontSize = fontSize
    }
}

/// An app's model, written as main-actor code: every call that waits on disk or the cloud is
/// the async form (the blocking forms are `noasync`, so the compiler refuses them here).
@MainActor public final class NotesModel {
    public let container: Container
    /// The documents in conflict, kept by a live query.
    public private(set) var conflicts: [DocumentPath] = []
    private var watching: Task<Void, Never>?

    public init(container: Container) {
        self.container = container
    }

    /// Registers the app's policy and names it for its lists in `.concord/policies`.
    public static func registerPolicies() {
        try? MergePolicies.register(TodoPolicy())
    }

    /// Resolves lists on their own with the app's policy (`auto`): sync and the agent apply it.
    public func useTodoPolicy(automatically: Bool) async throws {
        try await container.setPolicies("*.todo todo\(automatically ? " auto" : "")\n")
    }

    public func write(_ name: String, _ text: String) async throws {
        let document = try await container.openDocument(DocumentPath(name))
        defer { document.close() }
        try await document.save(.file(Data(text.utf8)))
    }

    public func read(_ name: String) async throws -> String? {
        guard case let .file(data)? = try await container.content(of: DocumentPath(name)) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Resolves every conflict with the policy `.concord/policies` chooses for it.
    public func resolveAll() async throws {
        for conflict in try await container.conflicts() {
            try await container.resolve(conflict.document, using: .mergeBySelection)
        }
    }

    public func save(_ settings: Settings) async throws {
        try await container.keyValueStore.set(settings, forKey: "settings")
    }

    public func settings() async throws -> Settings? {
        try await container.keyValueStore.value(Settings.self, forKey: "settings")
    }

    /// Follows the documents in conflict with a predicate query (NSMetadataQuery).
    public func watchConflicts(onChange: @escaping @MainActor ([DocumentPath]) -> Void) {
        let query = container.query(.inConflict, batchingInterval: .milliseconds(50))
        watching = Task { @MainActor [weak self] in
            for await update in query.updates() {
                self?.conflicts = update.results.map(\.path)
                onChange(update.results.map(\.path))
            }
        }
    }

    public func stopWatching() {
        watching?.cancel()
        watching = nil
    }

    /// Where the library's warnings go: a Logger, without importing Logging.
    public static func options(label: String) -> Container.Options {
        var options = Container.Options()
        options.logger = Logger(label: label)
        return options
    }
}
