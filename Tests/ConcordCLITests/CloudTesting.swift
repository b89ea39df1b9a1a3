import Foundation
import Testing

/// What the cloud tests check on a device's folder and on a bare repository.
enum CloudTesting {
    /// The environment of a run that reaches clouds: nothing from the test's own environment
    /// (agent, keys, credentials, certificate file) leaks in; `HOME` is the test's.
    static func environment(home: String, _ extra: [String: String] = [:]) -> [String: String] {
        [
            "HOME": home, "SSH_AUTH_SOCK": "", "CONCORD_SSH_KEY": "", "SSL_CERT_FILE": "",
            "CONCORD_CLOUD_USERNAME": "", "CONCORD_CLOUD_PASSWORD": "",
        ].merging(extra) { $1 }
    }

    /// A CLI fixture whose runs trust the authority of a new HTTPS git server (`SSL_CERT_FILE`),
    /// which serves an empty repository `cloud.git` to the user alice (password `s3cret-pass`).
    static func httpsFixture() throws -> (cli: CLI, server: HTTPSServer) {
        var cli = try CLI()
        let server = try HTTPSServer(in: "\(cli.folder)/https", users: ["alice": "s3cret-pass"])
        cli.environment = environment(home: "\(cli.folder)/home", ["SSL_CERT_FILE": server.authority])
        try server.makeRepository("cloud.git")
        return (cli, server)
    }

    /// A CLI fixture with a `git daemon` serving an empty repository `cloud.git` from its folder
    /// (`daemon.url("cloud.git")`).
    static func daemonFixture() throws -> (cli: CLI, daemon: GitDaemon) {
        let cli = try CLI()
        do {
            try makeBare("\(cli.folder)/cloud.git")
            return (cli, try GitDaemon(base: cli.folder))
        } catch {
            cli.remove()
            throw error
        }
    }

    /// Makes an empty bare repository with `main` as its HEAD.
    static func makeBare(_ path: String) throws {
        try runTool("/usr/bin/git", ["init", "--quiet", "--bare", "--initial-branch=main", path])
    }

    /// The files below `folder` whose bytes contain `secret`, other than the credentials store.
    static func filesHolding(_ secret: String, below folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        let needle = Data(secret.utf8)
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            guard !relative.hasSuffix(".git/concord/credentials") else { continue }
            let path = "\(folder)/\(relative)"
            if let data = FileManager.default.contents(atPath: path), data.range(of: needle) != nil { found.append(relative) }
        }
        return found
    }

    /// The permission bits of a file; nil when it does not exist.
    static func permissions(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }

    /// The commit a bare repository's `main` names; empty when it has none.
    static func main(ofBare path: String) -> String {
        (try? runTool("/usr/bin/git", ["-C", path, "rev-parse", "--verify", "--quiet", "main"]))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }
}
