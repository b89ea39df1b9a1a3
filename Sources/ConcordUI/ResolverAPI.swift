internal import Concord
internal import ConcordMerge
internal import Foundation
internal import HTTPTypes
internal import Hummingbird
internal import NIOCore
internal import ServiceLifecycle

/// The JSON API behind the page: what it reads and the resolutions it asks for, each through
/// `Concord`'s public API. Names and contents go out as JSON strings; the page puts them in the
/// document as text, never as markup.
struct ResolverAPI: Sendable {
    let container: Container
    let csrf: String

    /// The most a request body may hold: an edited result of the largest document the limits allow.
    static let bodyLimit = 512 << 20

    func session() throws -> Response {
        try Self.json(SessionJSON(csrf: csrf, device: container.device.name, root: container.root))
    }

    /// Every document with its state, those in conflict first (then by path).
    func documents() async throws -> Response {
        var conflicts = Dictionary(try await container.conflicts().map { ($0.document, $0.versionCount) }, uniquingKeysWith: { a, _ in a })
        let count = conflicts.count
        var inConflict: [DocumentJSON] = []
        var others: [DocumentJSON] = []
        for info in try await container.documents() {
            let versions = conflicts.removeValue(forKey: info.path)
            let document = DocumentJSON(path: info.path.value, state: Self.stateName(info, inConflict: versions != nil), package: info.isPackage, versions: versions)
            if versions == nil { others.append(document) } else { inConflict.append(document) }
        }
        // A conflict whose document is deleted is listed too: it is the record that matters.
        inConflict += conflicts.map { DocumentJSON(path: $0.key.value, state: "inConflict", package: false, versions: $0.value) }
        inConflict.sort { $0.path < $1.path }
        others.sort { $0.path < $1.path }
        let list = ListJSON(device: container.device.name, conflicts: count, inConflict: inConflict, others: others)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: list.encoded)))
    }

    /// The state's name for the page (``DocumentState/name``, the word `concord ls` shows):
    /// `inConflict` whenever the document has a conflict record, whatever else holds.
    static func stateName(_ info: DocumentInfo, inConflict: Bool) -> String {
        inConflict || info.state.contains(.inConflict) ? "inConflict" : info.state.name
    }

    /// A document in conflict: its versions and ancestor with their lines marked against the
    /// ancestor, each policy's preview, and the content the editable result starts from.
    func conflict(_ request: Request) async throws -> Response {
        let document = try Self.document(request.uri.queryParameters["document"].map(String.init))
        do {
            return try Self.json(ConflictJSON(try await container.contention(of: document)))
        } catch let error as ConcordError {
            return Self.failure(error.description, status: .notFound)
        }
    }

    /// A version's bytes, only when they are an image the browser shows without running anything
    /// (PNG, JPEG, GIF, WebP, told by their first bytes, never by the name): the page shows the
    /// versions of an image side by side. Anything else, an SVG included, is refused.
    func image(_ request: Request) async throws -> Response {
        let document = try Self.document(request.uri.queryParameters["document"].map(String.init))
        let version = request.uri.queryParameters["version"].map(String.init)
        do {
            guard case let .file(data)? = try await container.content(of: document, version: version), let type = ImageType(data) else {
                return Self.failure("not an image", status: .notFound)
            }
            var headers = HTTPFields()
            headers[.contentType] = type.rawValue
            headers[.contentDisposition] = "inline"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        } catch let error as ConcordError {
            return Self.failure(error.description, status: .notFound)
        }
    }

    /// One policy's preview text (the page asks for it when a person edits from it).
    func preview(_ request: Request) async throws -> Response {
        let document = try Self.document(request.uri.queryParameters["document"].map(String.init))
        let name = request.uri.queryParameters["policy"].map(String.init) ?? ""
        do {
            let contention = try await container.contention(of: document)
            guard let preview = contention.selected.policy == name ? contention.selected : contention.preview(name) else {
                return Self.failure("unknown policy", status: .notFound)
            }
            return try Self.json(PreviewTextJSON(policy: name, text: PreviewJSON.text(of: preview)))
        } catch let error as ConcordError {
            return Self.failure(error.description, status: .notFound)
        }
    }

    /// Resolves a document as the page asks: keep a version, the latest, both (the others saved
    /// beside, named after their devices), merge with a policy, or save the edited result
    /// (refused while it holds conflict markers, unless confirmed).
    func resolve(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: Self.bodyLimit)
        guard request.headers[.contentType]?.hasPrefix("application/json") == true,
            let asked = try? JSONDecoder().decode(ResolveRequestJSON.self, from: Data(body.readableBytesView))
        else {
            return Self.failure("send a JSON resolution", status: .badRequest)
        }
        let document = try Self.document(asked.document)
        let resolution: Resolution
        switch asked.action {
        case "keep":
            guard let version = asked.version else { return Self.failure("keep which version?", status: .badRequest) }
            resolution = .keep(version)
        case "latest":
            resolution = .latest
        case "keepBoth":
            resolution = .keepBoth
        case "policy":
            guard let name = asked.policy, let policy = MergePolicies.named(name) else { return Self.failure("unknown policy", status: .badRequest) }
            // The policy .concord/policies selects is used with its rule's options (a JSON rule's id= keys).
            let selected = try? await container.contention(of: document).selected.policy
            resolution = selected == name ? .mergeBySelection : .merge(policy)
        case "content":
            guard let text = asked.content else { return Self.failure("no content given", status: .badRequest) }
            if TextMergePolicy.containsConflictMarkers(text), asked.allowMarkers != true {
                return Self.failure("the result still holds conflict markers: edit them out, or confirm that they belong", status: .conflict)
            }
            resolution = .content(.file(Data(text.utf8)))
        default:
            return Self.failure("unknown action", status: .badRequest)
        }
        do {
            let report = try await container.resolve(document, using: resolution)
            return try Self.json(ResolvedJSON(document: document.value, explanation: report.explanation, version: report.version))
        } catch let error as NeedsPersonError {
            return Self.failure(error.description, status: .conflict)
        } catch let error as ConcordError {
            return Self.failure(error.description, status: .conflict)
        }
    }

    /// A document's history, newest first: each version with the lines it changed against the
    /// version it was made on top of (for the first, against nothing).
    /// The documents deleted recently, the latest first, each with what restores it.
    func deleted() async throws -> Response {
        let deleted = try await container.recentlyDeleted()
        return try Self.json(
            DeletedListJSON(
                deleted: deleted.map {
                    DeletedJSON(
                        document: $0.document.value, device: $0.deletion.deviceName, modified: $0.deletion.modified,
                        version: $0.deletion.id, lastVersion: $0.lastVersion)
                }))
    }

    func history(_ request: Request) async throws -> Response {
        let document = try Self.document(request.uri.queryParameters["document"].map(String.init))
        let versions: [DocumentVersion]
        do {
            versions = try await container.versions(of: document)
        } catch let error as ConcordError {
            return Self.failure(error.description, status: .notFound)
        }
        let byID = Dictionary(versions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let shown = Array(versions.prefix(Self.historyLimit))
        // The one before: the version it was made on top of (its line of edits), else the next older.
        let previous = shown.enumerated().map { index, version in
            version.replaces.first.flatMap { byID[$0] } ?? (index + 1 < versions.count ? versions[index + 1] : nil)
        }
        var contents: [String: DocumentContent?] = [:]
        for version in shown + previous.compactMap({ $0 }) where contents[version.id] == nil {
            contents[version.id] = .some((try? await container.content(of: document, version: version.id)) ?? nil)
        }
        let entries = zip(shown, previous).map { version, before in
            HistoryEntryJSON(version, content: contents[version.id] ?? nil, before: before.flatMap { contents[$0.id] ?? nil })
        }
        return try Self.json(HistoryJSON(document: document.value, total: versions.count, versions: entries))
    }

    /// The most versions a history shows, newest first.
    static let historyLimit = 100

    /// Restores a version: saves its content as a new current version (nothing is lost: the
    /// versions after it stay in the history).
    func restore(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 16)
        guard request.headers[.contentType]?.hasPrefix("application/json") == true,
            let asked = try? JSONDecoder().decode(RestoreRequestJSON.self, from: Data(body.readableBytesView))
        else {
            return Self.failure("send a JSON restore", status: .badRequest)
        }
        let document = try Self.document(asked.document)
        do {
            guard let content = try await container.content(of: document, version: asked.version) else {
                return Self.failure("that version is a deletion: there is nothing to restore", status: .conflict)
            }
            let saved = try await container.save(document, content: content)
            return try Self.json(RestoredJSON(document: document.value, version: saved.version))
        } catch let error as ConcordError {
            return Self.failure(error.description, status: .conflict)
        }
    }

    /// Undoes the resolution that made a document's current version: its versions are in
    /// contention again (``Container/undoResolution(of:)``).
    func undo(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 16)
        guard request.headers[.contentType]?.hasPrefix("application/json") == true,
            let asked = try? JSONDecoder().decode(UndoRequestJSON.self, from: Data(body.readableBytesView))
        else {
            return Self.failure("send a JSON undo", status: .badRequest)
        }
        let document = try Self.document(asked.document)
        do {
            let saved = try await container.undoResolution(of: document)
            return try Self.json(RestoredJSON(document: document.value, version: saved.version))
        } catch let error as ConcordError {
            return Self.failure(error.description, status: .conflict)
        }
    }

    /// Resolves every document in conflict whose path matches a glob, the same way, in one
    /// commit (all of them or none): with the latest version, each one's chosen policy
    /// (`.concord/policies`), or a named policy. With `dryRun`, says what each would keep and
    /// remove and changes nothing.
    func bulk(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 16)
        guard request.headers[.contentType]?.hasPrefix("application/json") == true,
            let asked = try? JSONDecoder().decode(BulkRequestJSON.self, from: Data(body.readableBytesView))
        else {
            return Self.failure("send a JSON bulk resolution", status: .badRequest)
        }
        let resolution: Resolution
        switch asked.action {
        case "latest": resolution = .latest
        case "chosen": resolution = .mergeBySelection
        case "policy":
            guard let name = asked.policy, let policy = MergePolicies.named(name) else { return Self.failure("unknown policy", status: .badRequest) }
            resolution = .merge(policy)
        default: return Self.failure("unknown action", status: .badRequest)
        }
        let pattern = GlobPattern(asked.pattern.isEmpty ? "*" : asked.pattern)
        do {
            let documents = try await container.conflicts().map(\.document).filter { pattern.matches($0.value) || pattern.matches($0.name) }
            guard !documents.isEmpty else { return Self.failure("no document in conflict matches \(pattern)", status: .notFound) }
            let reports = try await container.resolve(documents, using: resolution, dryRun: asked.dryRun)
            return try Self.json(reports.map(BulkReportJSON.init))
        } catch let error as NeedsPersonError {
            return Self.failure("\(error.description): nothing was resolved", status: .conflict)
        } catch let error as ConcordError {
            return Self.failure(error.description, status: .conflict)
        }
    }

    /// Server-sent events from the container's live query: one `change` event, naming the
    /// document, for each document added, changed, changing state or removed, by this page or by
    /// any other process. The page reloads what it shows.
    func events() -> Response {
        let query = container.query()
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                // The query's events and a comment every 15 s, in one stream: a page that went away
                // is found at the next write (the comment at the latest), which ends the query.
                let (messages, continuation) = AsyncStream.makeStream(of: String.self)
                let forward = Task {
                    for await event in query {
                        let path: String
                        switch event {
                        case .gathered: continue
                        case let .added(info), let .changed(info), let .stateChanged(info): path = info.path.value
                        case let .removed(document): path = document.value
                        }
                        let data = (try? JSONEncoder().encode(["document": path])) ?? Data()
                        continuation.yield("event: change\ndata: \(String(decoding: data, as: UTF8.self))\n\n")
                    }
                    continuation.finish()
                }
                let ping = Task {
                    while !Task.isCancelled {
                        try await Task.sleep(for: Self.eventsPing)
                        continuation.yield(": ping\n\n")
                    }
                }
                defer {
                    forward.cancel()
                    ping.cancel()
                }
                try await writer.write(ByteBuffer(string: ": listening\n\n"))
                for await message in messages.cancelOnGracefulShutdown() {
                    try await writer.write(ByteBuffer(string: message))
                }
                try await writer.finish(nil)
            })
    }

    /// How often the event stream writes a comment, to find a page that went away.
    static let eventsPing = Duration.seconds(15)

    static func document(_ text: String?) throws -> DocumentPath {
        guard let text, let document = try? DocumentPath(text) else { throw HTTPError(.badRequest, message: "a document path is needed") }
        return document
    }

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    static func failure(_ message: String, status: HTTPResponse.Status) -> Response {
        (try? json(["error": message], status: status)) ?? Response(status: status)
    }
}

/// The image formats the page shows, told by their first bytes.
enum ImageType: String {
    case png = "image/png"
    case jpeg = "image/jpeg"
    case gif = "image/gif"
    case webp = "image/webp"

    init?(_ data: Data) {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if bytes.count == 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            self = .webp
        } else {
            return nil
        }
    }
}
