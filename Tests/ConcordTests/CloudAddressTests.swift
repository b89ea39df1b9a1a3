@testable import Concord
import Testing

/// How a cloud URL is taken apart into what `.git/config` may hold and the secrets that go to
/// the store, and how text that mentions a URL is made safe to print.
@Suite struct CloudAddressTests {
    @Test func localPaths() {
        #expect(CloudAddress("/srv/cloud.git").transport == .local(path: "/srv/cloud.git"))
        #expect(CloudAddress("file:///srv/cloud.git").transport == .local(path: "/srv/cloud.git"))
        #expect(CloudAddress("relative/dir:with-colon").transport == .local(path: "relative/dir:with-colon"))
        #expect(CloudAddress("/srv/cloud.git").secrets == nil)
    }

    @Test func sshURLsKeepTheirUserAndLoseTheirPassword() {
        let url = CloudAddress("ssh://git@example.com:2222/srv/notes.git")
        #expect(url.transport == .ssh && url.host == "example.com" && url.port == 2222 && url.username == "git")
        #expect(url.url == "ssh://git@example.com:2222/srv/notes.git" && url.secrets == nil)
        let scp = CloudAddress("me:hunter2@example.com:notes.git")
        #expect(scp.transport == .ssh && scp.host == "example.com" && scp.port == nil)
        #expect(scp.url == "me@example.com:notes.git" && scp.secrets?.password == "hunter2")
        #expect(CloudAddress("example.com:/srv/notes.git").url == "example.com:/srv/notes.git")
        #expect(CloudAddress("ssh://[::1]:22/x.git").host == "::1")
    }

    @Test func httpsURLsLoseUserPasswordAndQuery() {
        let url = CloudAddress("https://alice:p%40ss@example.com:8443/git/notes.git?token=abc")
        #expect(url.transport == .http && url.port == 8443)
        #expect(url.url == "https://example.com:8443/git/notes.git")
        #expect(url.secrets == CloudSecrets(url: url.url, username: "alice", password: "p@ss", query: "token=abc"))
        let token = CloudAddress("https://ghp_TOKEN@example.com/notes.git")
        #expect(token.url == "https://example.com/notes.git" && token.secrets?.username == "ghp_TOKEN")
        #expect(CloudAddress("git://someone:hunter2@example.com/notes.git").url == "git://example.com/notes.git")
    }

    @Test func redactionHidesEverySecretAURLCanCarry() {
        #expect(CloudText.redacted("from https://alice:s3cret@host/x.git failed") == "from https://***@host/x.git failed")
        #expect(CloudText.redacted("https://ghp_TOKEN@host/x.git") == "https://***@host/x.git")
        #expect(CloudText.redacted("'https://host/x.git?token=abc&user=me' refused") == "'https://host/x.git?token=***&user=***' refused")
        #expect(CloudText.redacted("clone me:hunter2@host:notes.git") == "clone me:***@host:notes.git")
        #expect(CloudText.redacted("ssh://git:pw@host/x.git and ssh://git@host/y.git") == "ssh://git:***@host/x.git and ssh://git@host/y.git")
        #expect(CloudText.redacted("/srv/cloud.git: no such folder") == "/srv/cloud.git: no such folder")
    }
}
