internal import CGit2
internal import FoundationEssentials
internal import GitFormat
internal import GitStore

/// The subtransport of a smart transport: libgit2's for http and `git://`, Concord's
/// ``SSHSubtransport`` (OpenSSH's client) for ssh; when recording, inside one that records the
/// advertisement libgit2 reads as it connects (`concord_recording_subtransport` in the C shim),
/// kept so that Concord reads that advertisement itself (a push, a peek at a reference) and a
/// push uses its stream directly.
final class Subtransport {
    /// The service a connection asks the server for.
    enum Service {
        /// `git-upload-pack`: what a fetch connects to, for a reader's rights.
        case uploadPack
        /// `git-receive-pack`: what a push connects to.
        case receivePack

        /// The service's name, as smart http's `# service=` line says it.
        var name: String { self == .uploadPack ? "git-upload-pack" : "git-receive-pack" }

        /// The name errors give as the failing step (`receive-pack`).
        var step: String { String(name.dropFirst(4)) }

        /// libgit2's direction for the service.
        var direction: git_direction { self == .uploadPack ? GIT_DIRECTION_FETCH : GIT_DIRECTION_PUSH }
    }

    enum Kind: Equatable {
        case ssh, http, git

        /// The kind a URL names; nil for a local path or `file://`.
        init?(url: String) {
            let lower = url.lowercased()
            if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
                self = .http
            } else if lower.hasPrefix("git://") {
                self = .git
            } else if ["ssh://", "ssh+git://", "git+ssh://"].contains(where: lower.hasPrefix) {
                self = .ssh
            } else if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/"), !url.contains("://") {
                self = .ssh
            } else {
                return nil
            }
        }
    }

    let kind: Kind
    /// The most bytes of an advertisement kept; nil records nothing.
    let limit: Int?
    /// How ssh is run, for an ssh URL.
    let ssh: SSHClient
    /// True for a transport kept from one operation to the next (``KeptTransport``): the
    /// subtransport keeps its credentials across connects, so that each operation after the
    /// first sends them at once (`keeps_state` in the C shim).
    let keepsState: Bool
    /// The subtransport, inside a recording one (`concord_recording_subtransport_new`) when
    /// recording.
    var subtransport: UnsafeMutablePointer<git_smart_subtransport>?

    init(_ kind: Kind, recordingAtMost limit: Int?, ssh: SSHClient?, keepsState: Bool = false) {
        self.kind = kind
        self.limit = limit
        self.ssh = ssh ?? SSHClient(home: ProcessVariable.home, controlFolder: nil)
        self.keepsState = keepsState
    }

    /// Forgets the advertisement recorded last, before an operation on a kept transport
    /// (``KeptTransport``): until the new one arrives, ``recordedAnything`` is false.
    func forgetAdvertisement() {
        if let subtransport, limit != nil { concord_recording_reset(subtransport) }
    }

    /// True when a byte of an advertisement arrived since the transport's last action for one
    /// (or since ``forgetAdvertisement()``): the server answered.
    var recordedAnything: Bool {
        guard let subtransport, limit != nil else { return false }
        var length = 0
        var failed: Int32 = 0
        _ = concord_recorded_advertisement(subtransport, &length, &failed)
        return length > 0 || failed != 0
    }

    /// The references the remote advertised for `service` when the transport connected, read
    /// from the bytes libgit2 received, with GitFormat's checks.
    /// - Throws: ``GitError`` when they are malformed, or were not kept (over the limit).
    func advertisement(of service: Service) throws -> ReferenceAdvertisement {
        guard let subtransport else { throw GitError(message: "libgit2 made no subtransport", function: "git_transport_smart") }
        var length = 0
        var failed: Int32 = 0
        let start = concord_recorded_advertisement(subtransport, &length, &failed)
        guard failed == 0 else {
            throw GitError(code: .oversizedAnswer, errorClass: .net, message: "the remote's advertisement is over \(limit ?? 0) bytes", function: service.step)
        }
        let bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        do {
            return try ReferenceAdvertisement(bytes, service: kind == .http ? service.name : nil)
        } catch {
            throw GitError(message: "the remote's answer is malformed: \(error)", function: service.step)
        }
    }
}

let subtransportCallback: git_smart_subtransport_cb = { out, owner, param in
    guard let out, let param else { return -1 }
    let capture = Unmanaged<Subtransport>.fromOpaque(param).takeUnretainedValue()
    var inner: UnsafeMutablePointer<git_smart_subtransport>?
    let result: Int32
    switch capture.kind {
    case .ssh:
        inner = SSHSubtransport.make(client: capture.ssh)
        result = 0
    case .http: result = git_smart_subtransport_http(&inner, owner, nil)
    case .git: result = git_smart_subtransport_git(&inner, owner, nil)
    }
    guard result == 0, let inner else { return result < 0 ? result : -1 }
    guard let limit = capture.limit else {
        capture.subtransport = inner
        out.pointee = inner
        return 0
    }
    guard let recording = concord_recording_subtransport_new(inner, limit, capture.keepsState ? 1 : 0) else {
        inner.pointee.free(inner)
        return -1
    }
    capture.subtransport = recording
    out.pointee = recording
    return 0
}
