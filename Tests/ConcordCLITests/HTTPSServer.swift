import Foundation

/// A real HTTPS git server on a free port of 127.0.0.1: lighttpd running `git http-backend`
/// behind basic authentication, with a certificate for `localhost` signed by a certificate
/// authority made for the test (not trusted unless named with `SSL_CERT_FILE`). Stopped by its PID.
/// Its access log names the connection that carried each request (``accessLog()``).
final class HTTPSServer {
    /// The server's files; repositories below `folder/repos`.
    let folder: String
    let port: Int
    /// The test authority's certificate, for `SSL_CERT_FILE`.
    let authority: String
    private var process: ServerProcess

    /// Starts the server with the users `users` (name → password); `scripts` maps more paths
    /// (`/stall`) to CGI programs, whose answers are then streamed as they come.
    init(in folder: String, users: [String: String], scripts: [String: String] = [:]) throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: "\(folder)/repos", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(folder)/www", withIntermediateDirectories: true)
        authority = "\(folder)/ca.pem"
        let openssl = "/usr/bin/openssl"
        try runTool(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "\(folder)/ca.key", "-out", authority, "-days", "2", "-subj", "/CN=Concord test authority",
            ])
        try runTool(
            openssl,
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "\(folder)/server.key", "-out", "\(folder)/server.csr", "-subj", "/CN=localhost",
            ])
        try "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n".write(toFile: "\(folder)/server.ext", atomically: true, encoding: .utf8)
        try runTool(
            openssl,
            [
                "x509", "-req", "-in", "\(folder)/server.csr", "-CA", authority, "-CAkey", "\(folder)/ca.key",
                "-CAcreateserial", "-out", "\(folder)/server.pem", "-days", "2", "-extfile", "\(folder)/server.ext",
            ])
        let port = try ServerProcess.freePort()
        self.port = port
        try HTTPSServer.writeUsers(users, to: "\(folder)/users")
        let config = """
            server.document-root = "\(folder)/www"
            server.port = \(port)
            server.bind = "127.0.0.1"
            server.errorlog = "\(folder)/error.log"
            server.modules = ("mod_alias", "mod_auth", "mod_authn_file", "mod_cgi", "mod_setenv", "mod_openssl", "mod_accesslog")
            accesslog.filename = "\(folder)/access.log"
            accesslog.format = "%{remote}p %>s %r"
            ssl.engine = "enable"
            ssl.pemfile = "\(folder)/server.pem"
            ssl.privkey = "\(folder)/server.key"
            alias.url = ("/git" => "/usr/lib/git-core/git-http-backend"\(scripts.map { ", \"\($0.key)\" => \"\($0.value)\"" }.joined()))
            cgi.assign = ("" => "")
            setenv.add-environment = ("GIT_PROJECT_ROOT" => "\(folder)/repos", "GIT_HTTP_EXPORT_ALL" => "1")
            auth.backend = "plain"
            auth.backend.plain.userfile = "\(folder)/users"
            auth.require = ("/git" => ("method" => "basic", "realm" => "git", "require" => "valid-user"))
            """ + (scripts.isEmpty ? "" : "\nserver.stream-response-body = 2")
        try config.write(toFile: "\(folder)/lighttpd.conf", atomically: true, encoding: .utf8)
        process = try Self.start(folder: folder, port: port)
    }

    private static func start(folder: String, port: Int) throws -> ServerProcess {
        let process = try ServerProcess(["/usr/sbin/lighttpd", "-D", "-f", "\(folder)/lighttpd.conf"], log: "\(folder)/lighttpd.log")
        try process.wait(until: { ServerProcess.canConnect(port) }, what: "lighttpd (see \(folder)/lighttpd.log)")
        return process
    }

    /// Stops the server and starts it again on the same port, with the same certificate and
    /// repositories: its connections are closed, as a restart of a real server closes them.
    func restart() throws {
        process.stop()
        process = try Self.start(folder: folder, port: port)
    }

    /// One request the server answered, as its access log says.
    struct Request: Equatable {
        /// The client's port: the connection that carried it.
        let port: Int
        /// The status answered.
        let status: Int
        /// The request line (`GET /git/cloud.git/info/refs?service=git-upload-pack HTTP/1.1`).
        let line: String

        /// True for a request for upload-pack's advertisement (a fetch's or a peek's first).
        var isUploadPackAdvertisement: Bool { line.contains("/info/refs?service=git-upload-pack") }
    }

    /// The requests answered so far, in order, as far as lighttpd has written its log (it
    /// writes every few seconds).
    func accessLog() -> [Request] {
        let text = (try? String(contentsOfFile: "\(folder)/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let port = Int(fields[0]), let status = Int(fields[1]) else { return nil }
            return Request(port: port, status: status, line: String(fields[2]))
        }
    }

    /// Makes an empty bare repository `name` that takes pushes.
    func makeRepository(_ name: String) throws {
        let path = "\(folder)/repos/\(name)"
        try runTool("/usr/bin/git", ["init", "--quiet", "--bare", "--initial-branch=main", path])
        try runTool("/usr/bin/git", ["-C", path, "config", "http.receivepack", "true"])
    }

    /// The URL of repository `name`, with `userInfo` (`user:password`, or a token) when given,
    /// on `port` when given (a ``ConnectionProxy``'s in front of the server).
    func url(_ name: String, userInfo: String? = nil, port: Int? = nil) -> String {
        "https://\(userInfo.map { "\($0)@" } ?? "")localhost:\(port ?? self.port)/git/\(name)"
    }

    /// Replaces the users the server accepts (lighttpd reads the file at each request).
    func setUsers(_ users: [String: String]) throws {
        try HTTPSServer.writeUsers(users, to: "\(folder)/users")
    }

    func stop() { process.stop() }

    private static func writeUsers(_ users: [String: String], to file: String) throws {
        try users.map { "\($0.key):\($0.value)\n" }.joined().write(toFile: file, atomically: true, encoding: .utf8)
    }
}
