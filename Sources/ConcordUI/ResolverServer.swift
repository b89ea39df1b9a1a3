public import Concord
internal import Foundation
internal import HTTPTypes
internal import Hummingbird
internal import Logging
internal import NIOCore
internal import ServiceLifecycle

/// The resolver page's server (`concord-ui`, started by `concord ui`): the container's documents
/// and conflicts as a web page on 127.0.0.1, behind ``AccessGuard``. Everything it shows and does
/// goes through `Concord`'s public API, as an app's own resolver would.
public struct ResolverServer: Sendable {
    /// The container it serves.
    public let container: Container
    /// The run's token and CSRF token.
    public let secrets: AccessSecrets

    /// A server for `container`, with new random secrets.
    public init(container: Container) {
        self.container = container
        secrets = AccessSecrets()
    }

    /// Listens on 127.0.0.1 at `port` (0: one the system picks) until SIGINT or SIGTERM.
    /// - Parameter onListening: called once listening, with the address to open (token included).
    /// - Throws: when the port cannot be bound.
    public func run(port: Int, onListening: @escaping @Sendable (String) async -> Void) async throws {
        var logger = Logger(label: "concord-ui")
        logger.logLevel = .error
        let secrets = secrets
        let app = Application(
            router: router(), configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil, reuseAddress: false),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                secrets.port = bound
                await onListening("http://127.0.0.1:\(bound)/?token=\(secrets.token)")
            }, logger: logger)
        try await app.runService()
    }

    /// The routes: the page, its style and script, and the JSON API the script calls.
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: AccessGuard(secrets: secrets))
        router.get("/") { _, _ in Self.asset(PageAssets.html, type: "text/html; charset=utf-8") }
        router.get("/app.css") { _, _ in Self.asset(PageAssets.css, type: "text/css; charset=utf-8") }
        router.get("/app.js") { _, _ in Self.asset(PageAssets.script, type: "text/javascript; charset=utf-8") }
        let api = ResolverAPI(container: container, csrf: secrets.csrf)
        router.get("/api/session") { _, _ in try api.session() }
        router.get("/api/documents") { _, _ in try await api.documents() }
        router.get("/api/conflict") { request, _ in try await api.conflict(request) }
        router.get("/api/preview") { request, _ in try await api.preview(request) }
        router.get("/api/image") { request, _ in try await api.image(request) }
        router.post("/api/resolve") { request, _ in try await api.resolve(request) }
        router.get("/api/history") { request, _ in try await api.history(request) }
        router.get("/api/deleted") { _, _ in try await api.deleted() }
        router.post("/api/restore") { request, _ in try await api.restore(request) }
        router.post("/api/undo") { request, _ in try await api.undo(request) }
        router.post("/api/bulk") { request, _ in try await api.bulk(request) }
        router.get("/api/events") { _, _ in api.events() }
        return router
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
