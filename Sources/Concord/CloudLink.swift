internal import FoundationEssentials
internal import Git
internal import GitFormat

/// A container's link to its cloud (`origin`), made once per operation: the address and the
/// credentials read once, the transport chosen once, and the moves of `main` between this
/// device and the cloud.
///
/// A cloud that is a repository on this machine is reached directly, as someone else's: it is
/// a ``LocalCloud`` (Concord's checked readers serve its objects; libgit2 never opens its
/// files), fetch and push copy exactly the objects of the new commits' changed folders, every
/// object fetched hashed to its id, and the cloud's `main` moves by compare-and-swap under git's
/// lock file. Nothing of the cloud is shared with the device: no hard link, no alternates. Any other
/// cloud goes through libgit2's transports, with the credentials of ``CloudEnvironment`` and the
/// store (``CloudSecrets``), ssh through OpenSSH's client (its configuration, keys and
/// known_hosts, one connection kept for the operations that follow), https and http over one
/// connection for the link's operations (a ``KeptConnection``: the link's own, or one its caller
/// keeps beyond it), certificates always verified, and time-outs
/// (``NetworkLimits/current(in:)``): a server that stalls makes a sync offline, like one that
/// cannot be reached.
final class CloudLink {
    /// What an unreachable cloud is reported as.
    enum Purpose {
        /// `offline`: the device's versions wait for the next sync.
        case sync
        /// A failed clone.
        case clone
    }

    private enum Transport {
        /// A repository on this machine, opened as a cloud.
        case local(LocalCloud)
        /// A path on this machine that holds no repository (now): the cloud cannot be reached.
        case missing(GitError)
        /// ssh, https, http or `git://`, through libgit2's transports.
        case network(NetworkCloud)
        /// A test's cloud in place of the container's own (``CloudSubstitution``).
        case substitute(any Cloud)

        /// The cloud, whatever its transport.
        /// - Throws: why a cloud on this machine cannot be reached.
        func cloud() throws -> any Cloud {
            switch self {
            case let .local(cloud): cloud
            case let .missing(error): throw error
            case let .network(cloud): cloud
            case let .substitute(cloud): cloud
            }
        }
    }

    /// The device's repository.
    let repository: Repository
    /// The cloud's address, as configured (without secrets).
    let address: CloudAddress
    private let transport: Transport
    private let purpose: Purpose
    private let lockTimeout: Double
    /// Where the credentials offered came from, for messages.
    private let secretsSource: String?
    /// Credentials from the environment that differ from the stored ones: stored once the
    /// cloud accepted them.
    private var pendingSecrets: CloudSecrets?
    /// Keeps a local cloud's object database small after a push (``Maintenance``).
    private let maintain: (Repository) -> Void
    /// True once a fetch through this link was answered: a push refused by the server right
    /// after is a refusal of this device's writes, not a cloud out of reach.
    private var answeredFetch = false
    /// What the environment said, for messages.
    private let environment: CloudEnvironment

    /// The link of the container whose repository is `repository`.
    /// - Parameters:
    ///   - secretsSource: where the stored secrets came from, when init or clone was just given
    ///     them (for messages).
    ///   - connection: the connection to reach an https or http cloud over, kept by the caller
    ///     beyond this link (the agent's checks); nil: the link's own.
    /// - Throws: ``ConcordError/failed(_:)`` when the container has no cloud or a network cloud's
    ///   time-out setting is invalid (``NetworkLimits/current(in:)``),
    ///   ``ConcordError/cloudRefused(_:)`` when `SSL_CERT_FILE` cannot be read.
    init(
        repository: Repository, lockTimeout: Double, purpose: Purpose = .sync, secretsSource given: String? = nil,
        environment: CloudEnvironment = .current, connection: KeptConnection? = nil, maintain: @escaping (Repository) -> Void = { _ in }
    ) throws {
        self.repository = repository
        self.maintain = maintain
        self.environment = environment
        self.lockTimeout = lockTimeout
        self.purpose = purpose
        let configured = try ConcordError.wrap("cannot read the configuration") { try repository.remoteURL("origin") }
        guard let configured else {
            throw ConcordError.noCloud
        }
        let address = CloudAddress(configured)
        self.address = address
        if let substitute = try CloudSubstitution.cloud(for: repository) {
            transport = .substitute(substitute)
            secretsSource = nil
            return
        }
        if case let .local(path) = address.transport {
            do {
                transport = .local(
                    try LocalCloud(
                        at: path, largestObject: try ArrivalCheck.Limits.current(in: repository, containerFileSize: ContainerLimits.fileSize(inMainOf: repository)).objectSize))
            } catch let error as GitError {
                transport = .missing(error)
            }
            secretsSource = nil
            return
        }
        var secrets = try CloudSecrets.load(gitDirectory: repository.gitDirectory, url: address.url)
        var source = secrets == nil ? nil : "stored in \(CloudSecrets.file(gitDirectory: repository.gitDirectory))"
        if let configuredSecrets = address.secrets, address.url != configured {
            // A URL written by an older Concord, or by hand, holds secrets: move them to the store.
            try configuredSecrets.save(gitDirectory: repository.gitDirectory)
            try ConcordError.wrap("cannot write the configuration") { try repository.setRemote("origin", url: address.url) }
            secrets = configuredSecrets
        }
        if var given = environment.secrets(for: address, storedUsername: secrets?.username), given.username != secrets?.username || given.password != secrets?.password {
            given.query = secrets?.query
            pendingSecrets = given
            secrets = given
            source = "in CONCORD_CLOUD_USERNAME and CONCORD_CLOUD_PASSWORD"
        }
        secretsSource = given ?? source
        let credentials = secrets?.username.map { [Credential.password(username: $0, password: secrets?.password ?? "")] } ?? []
        let access = RemoteAccess(credentials: credentials, ssh: address.transport == .ssh ? environment.sshClient : nil)
        transport = .network(
            NetworkCloud(
                remote: "origin", url: secrets?.query.map { "\(address.url)?\($0)" }, access: access, limits: try NetworkLimits.current(in: repository),
                largestObject: try ArrivalCheck.Limits.current(in: repository, containerFileSize: ContainerLimits.fileSize(inMainOf: repository)).objectSize,
                connection: connection))
        if address.transport == .http, let file = environment.certificateFile {
            do {
                try CertificateAuthorities.add(file: file)
            } catch let error as GitError {
                throw ConcordError.cloudRefused(
                    CloudRefusal(
                        cause: .certificate, url: address.url, detail: "SSL_CERT_FILE=\(file): \(error.message)"))
            }
        }
    }

    /// Fetches the objects of the cloud's `main` that this device lacks, and returns the commit
    /// it names; nil when the cloud has no `main`. `origin/main` does not move: the caller moves
    /// it once what arrived passed the arrival check (``ContainerCore/checkArrival(_:local:packsBefore:)``),
    /// so that it only ever names commits this device accepted.
    /// - Throws: ``ConcordError/offline(reason:waiting:)`` (``ConcordError/failed(_:)`` for a
    ///   clone) when the cloud cannot be reached, ``ConcordError/cloudRefused(_:)`` when it
    ///   refused this device or this device refused it, ``ConcordError/damagedFromCloud(url:reason:)``
    ///   when what it sent is missing, damaged or malformed.
    func fetch(progress: (@Sendable (SyncProgress) -> Void)?) throws -> OID? {
        do {
            let cloud = try transport.cloud()
            let known = try [ContainerLayout.remoteMain, ContainerLayout.main].compactMap(repository.resolve)
            let containerDecides = !ArrivalCheck.Limits.deviceFixesObjectSize(in: repository)
            if case let .local(local) = transport, containerDecides {
                // The largest file the cloud's own limit allows, read from its main with
                // Concord's checked reader before anything is copied (up to the ceiling); the
                // arrival check then holds every commit to it.
                let theirs = ContainerLimits.fileSize(at: try? local.reference(ContainerLayout.main), in: local.repository)
                let ours = ContainerLimits.fileSize(inMainOf: repository)
                local.repository.largestObject = min(
                    ContainerLimits.ceiling, max(theirs ?? ContainerLimits.defaultFileSize, ours ?? ContainerLimits.defaultFileSize))
            }
            let tip: OID?
            do {
                tip = try cloud.fetch(ContainerLayout.main, into: repository, known: known, progress: progress.map(SyncProgress.forward))
            } catch let error as GitError where error.isOverLimit && containerDecides {
                // Over the network, the limit the arriving commits name is known only once they
                // arrived: a file over this device's limit is taken up to the ceiling, and the
                // arrival check then refuses it unless the container raised its limit.
                guard case let .network(network) = transport, network.largestObject < ContainerLimits.ceiling else { throw error }
                network.largestObject = ContainerLimits.ceiling
                tip = try network.fetch(ContainerLayout.main, into: repository, known: known, progress: progress.map(SyncProgress.forward))
            }
            try keep(cloud.acceptedCredential)
            answeredFetch = true
            return tip
        } catch let error as GitError {
            throw failure(error, during: .fetch)
        }
    }

    /// The commit the cloud's `main` names now, read without transferring any object (a network
    /// cloud's reference advertisement, a local cloud's reference file): what the sync agent
    /// compares with `origin/main` between syncs. Moves no reference.
    /// - Returns: the commit; nil when the cloud has no `main`.
    /// - Throws: the errors of ``fetch(progress:)`` for a cloud that cannot be reached or
    ///   refused this device.
    func peek() throws -> OID? {
        do {
            let cloud = try transport.cloud()
            let tip = try cloud.peek(ContainerLayout.main, from: repository)
            try keep(cloud.acceptedCredential)
            return tip
        } catch let error as GitError {
            throw failure(error, during: .fetch)
        }
    }

    /// Sends `main` to the cloud as a fast-forward of what was fetched, then records that the
    /// cloud has it (`origin/main`).
    /// - Returns: ``PushOutcome/cloudMoved`` when the cloud moved since the fetch (fetch and
    ///   integrate again).
    /// - Throws: the errors of ``fetch(progress:)``.
    @discardableResult
    func push() throws -> PushOutcome {
        guard let main = try ConcordError.wrap("cannot read main", { try repository.resolve(ContainerLayout.main) }) else { return .pushed }
        let outcome: PushOutcome
        do {
            // Only a fast-forward of what this sync fetched (nil: the cloud had no main).
            let fetched = try repository.resolve(ContainerLayout.remoteMain)
            if case let .local(cloud) = transport {
                // Pushes from this machine's Concord processes take turns, so a reference lock
                // found in the cloud while holding the turn was left by a killed push.
                let turn = try? ContainerLock(file: cloud.gitDirectory + ContainerLayout.cloudPushTurn, holder: address.url, timeout: lockTimeout)
                if turn != nil { cloud.removeStaleLock(ofReference: ContainerLayout.main) }
                outcome = try withExtendedLifetime(turn) { try cloud.push(main, to: ContainerLayout.main, expected: fetched, from: repository) }
                if outcome == .pushed { maintain(cloud.repository) }
            } else {
                let cloud = try transport.cloud()
                outcome = try cloud.push(main, to: ContainerLayout.main, expected: fetched, from: repository)
                try keep(cloud.acceptedCredential)
            }
        } catch let error as GitError {
            throw failure(error, during: .push)
        }
        if outcome == .pushed { try? repository.forceReference(ContainerLayout.remoteMain, to: main, message: "concord: pushed") }
        return outcome
    }

    /// Makes the device repository at `path` for a clone of the cloud at `address`, and
    /// fetches the cloud's `main` through a link, as a sync fetches (``fetch(progress:)``): a
    /// cloud on this machine shares no file with the device (no hard link, no alternates, no
    /// reference but `main`), and what arrives passes the same checks and limits. The secrets
    /// the URL or the environment gave are stored first.
    /// - Throws: ``ConcordError/failed(_:)`` when the cloud cannot be cloned,
    ///   ``ConcordError/cloudRefused(_:)``.
    static func clone(
        _ address: CloudAddress, to path: String, lockTimeout: Double, progress: (@Sendable (SyncProgress) -> Void)?,
        environment: CloudEnvironment = .current
    ) throws -> (repository: Repository, main: OID?) {
        let repository = try ConcordError.wrap("cannot create a repository at \(path)") {
            let repository = try Repository.create(at: path, bare: false)
            try UnfinishedClone.mark(repository)
            try repository.setRemote("origin", url: address.url)
            return repository
        }
        let given = environment.givenSecrets(address)
        try given?.secrets.save(gitDirectory: repository.gitDirectory)
        let link = try CloudLink(
            repository: repository, lockTimeout: lockTimeout, purpose: .clone, secretsSource: given?.source, environment: environment)
        return (repository, try link.fetch(progress: progress))
    }

    /// Versions (commits other than integrations) on `main` that the cloud has not received,
    /// as far as this device knows (`origin/main`).
    static func waitingVersions(in repository: Repository) throws -> Int {
        guard let local = try ConcordError.wrap("cannot read main", { try repository.resolve(ContainerLayout.main) }) else { return 0 }
        var count = 0
        try ConcordError.wrap("cannot walk the history") {
            let remote = try repository.resolve(ContainerLayout.remoteMain)
            try repository.walk(from: [local], hiding: remote.map { [$0] } ?? []) { id in
                if try repository.parents(ofCommit: id).count < 2 { count += 1 }
                return true
            }
        }
        return count
    }

    /// Stores credentials given in the environment once the cloud accepted them.
    private func keep(_ accepted: Credential?) throws {
        guard let pending = pendingSecrets, case .password = accepted else { return }
        try pending.save(gitDirectory: repository.gitDirectory)
        pendingSecrets = nil
    }

    /// The two moves between this device and the cloud, for messages.
    private enum Step {
        case fetch, push

        var verb: String { self == .fetch ? "reach" : "push to" }
    }

    private func failure(_ error: GitError, during step: Step) -> ConcordError {
        let url = CloudText.redacted(address.url)
        let message = CloudText.redacted(error.message)
        if error.isAuthentication {
            return .cloudRefused(CloudRefusal(cause: .authentication, url: url, detail: authenticationAdvice(message)))
        }
        if error.isHostKey {
            return .cloudRefused(CloudRefusal(cause: .hostKey, url: url, detail: message))
        }
        if error.isCertificate {
            return .cloudRefused(
                CloudRefusal(
                    cause: .certificate, url: url,
                    detail: "\(message); if a private authority signed it, name its certificate with SSL_CERT_FILE=FILE"))
        }
        if step == .push, answeredFetch, error.isRefusedByServer {
            // The server answered the fetch a moment ago and turned the push away: a device
            // that may read but not write (a read-only user of a shared git host).
            let words = CloudText.redacted(error.message.split(whereSeparator: \.isNewline).joined(separator: " "))
            let waiting = (try? Self.waitingVersions(in: repository)) ?? 0
            return .cloudRefused(
                CloudRefusal(
                    cause: .writeAccess, url: url,
                    detail: "\(words); this device received the others' versions and keeps its \(waiting) own "
                        + "until it may write (ask the cloud's owner for write access)"))
        }
        if error.isOverLimit {
            let advice =
                ArrivalCheck.Limits.deviceFixesObjectSize(in: repository)
                ? "this device's own limit: CONCORD_MAX_OBJECT_SIZE or concord.maxObjectSize set it"
                : "the container's limit, up to 512 MB on its word alone: 'concord limits --file-size SIZE' raises it for every device, "
                    + "concord.maxObjectSize takes a device past 512 MB"
            return .failed(
                "refused what the cloud \(url) sent: \(message); nothing of it was taken, and this device keeps its own versions (\(advice))")
        }
        if error.isBadObject || error.isOversizedAnswer {
            // The cloud answered: what it holds or sent cannot be read (or is far too large to
            // be references). Not offline, which says to wait; waiting changes nothing here.
            return step == .fetch
                ? .damagedFromCloud(url: url, reason: message)
                : .failed("cannot push to the cloud \(url): \(message)")
        }
        var cause = message
        if error.isTimeout {
            cause += "; \(NetworkLimits.timeoutSettings) sets the time-out, in seconds"
        }
        if case let .local(path) = address.transport, !FileManager.default.fileExists(atPath: path) {
            cause = "the cloud folder \(path) does not exist"
        }
        switch purpose {
        case .clone:
            return .failed("cannot clone the cloud \(url): \(cause)")
        case .sync:
            return .offline(reason: "cannot \(step.verb) the cloud \(url): \(cause)", waiting: (try? Self.waitingVersions(in: repository)) ?? 0)
        }
    }

    private func authenticationAdvice(_ message: String) -> String {
        if address.transport == .ssh {
            let skipped = environment.unusableSSHKeys
            return "\(message) (keys come from ssh-agent, then ~/.ssh/config's IdentityFile or \(Self.describedKeys), or CONCORD_SSH_KEY=FILE)"
                + (skipped.isEmpty ? "" : "; skipped \(skipped.joined(separator: ", "))")
        }
        guard let secretsSource else {
            return "\(message): give a user name and password (or token) in the URL to init or clone, "
                + "or in CONCORD_CLOUD_USERNAME and CONCORD_CLOUD_PASSWORD"
        }
        return "\(message) (\(secretsSource)); give the right ones in CONCORD_CLOUD_USERNAME and CONCORD_CLOUD_PASSWORD"
    }

    private static var describedKeys: String {
        "~/.ssh/" + CloudEnvironment.defaultKeyNames.joined(separator: ", ")
    }
}
