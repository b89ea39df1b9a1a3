internal import Foundation
internal import HTTPTypes
public import Hummingbird

/// Who may talk to the resolver page, checked before any route runs: only this machine, only
/// the person who was given the address.
///
/// - The `Host` header must name the loopback address and the server's port (`127.0.0.1:PORT` or
///   `localhost:PORT`): a page from another site that makes its name point at 127.0.0.1 (DNS
///   rebinding) sends its own name and is refused.
/// - Every request presents the token of the printed address: in the query (`?token=…`, then the
///   page is redirected to the same path without it and the token set as a cookie, `HttpOnly`,
///   `SameSite=Strict`), or as that cookie.
/// - A write (any method but GET and HEAD) also needs the same origin (`Origin` is the page's
///   own) and the session's CSRF token in the `X-Concord-CSRF` header, which only the page's
///   script can read (from `/api/session`).
/// - Every answer carries a strict Content-Security-Policy (scripts, styles and connections from
///   the page's own origin only: no inline script), `nosniff`, no referrer and no caching.
public struct AccessGuard<Context: RequestContext>: RouterMiddleware {
    /// The header that carries the CSRF token.
    public static var csrfHeader: HTTPField.Name { HTTPField.Name("X-Concord-CSRF")! }

    /// The Content-Security-Policy of every answer.
    public static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    let secrets: AccessSecrets

    /// A guard checking requests against `secrets`.
    public init(secrets: AccessSecrets) {
        self.secrets = secrets
    }

    /// Refuses what the rules above refuse (403, one line of text), else runs `next`; adds the
    /// security headers to every answer.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await check(request, context: context, next: next)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[.cacheControl] = "no-store"
        return response
    }

    private func check(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let port = secrets.port
        let host = request.head.authority ?? ""
        guard host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
            return Self.refuse("refused: this page answers only to 127.0.0.1:\(port)")
        }
        if let given = request.uri.queryParameters["token"] {
            guard Self.same(String(given), secrets.token) else { return Self.refuse("refused: wrong token") }
            // The address's token becomes a cookie, and the address loses it (no token in history or referrers).
            var response = Response(status: .seeOther)
            response.headers[.location] = request.uri.path
            response.headers[.setCookie] = "\(secrets.cookieName)=\(secrets.token); Path=/; HttpOnly; SameSite=Strict"
            return response
        }
        guard let cookie = request.cookies[secrets.cookieName], Self.same(cookie.value, secrets.token) else {
            return Self.refuse("refused: open the address concord ui printed (it carries the token)")
        }
        if request.method != .get && request.method != .head {
            guard let origin = request.headers[.origin], origin == "http://\(host)" else {
                return Self.refuse("refused: a write must come from the page itself")
            }
            guard let csrf = request.headers[Self.csrfHeader], Self.same(csrf, secrets.csrf) else {
                return Self.refuse("refused: a write must carry the page's CSRF token")
            }
        }
        return try await next(request, context)
    }

    static func refuse(_ message: String) -> Response {
        Response(
            status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    /// Compares two secrets in a time that does not depend on where they differ.
    static func same(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
