internal import CGit2
internal import GitFormat

/// The subtransport libgit2 makes for a smart transport, inside one that records the
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
    /// The most bytes of an advertisement kept.
    let limit: Int
    /// libgit2's subtransport inside a recording one (`concord_recording_subtransport_new`).
    var subtransport: UnsafeMutablePointer<git_smart_subtransport>?

    init(_ kind: Kind, recordingAtMost limit: Int) {
        self.kind = kind
        self.limit = limit
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
            throw GitError(code: .oversizedAnswer, errorClass: .net, message: "the remote's advertisement is over \(limit) bytes", function: service.step)
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
    let result =
        switch capture.kind {
        case .ssh: git_smart_subtransport_ssh(&inner, owner, nil)
        case .http: git_smart_subtransport_http(&inner, owner, nil)
        case .git: git_smart_subtransport_git(&inner, owner, nil)
        }
    guard result == 0, let inner else { return result < 0 ? result : -1 }
    guard let recording = concord_recording_subtransport_new(inner, capture.limit) else {
        inner.pointee.free(inner)
        return -1
    }
    capture.subtransport = recording
    out.pointee = recording
    return 0
}
