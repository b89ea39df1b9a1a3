internal import Git
internal import GitFormat

/// The cloud as the core sees it: a link for one operation, and what waits to go up.
extension ContainerCore {
    /// Versions on main that the cloud has not received (see ``CloudLink/waitingVersions(in:)``).
    func waitingVersionCount() throws -> Int {
        try CloudLink.waitingVersions(in: repository)
    }

    /// The link to this container's cloud, for one operation.
    func cloudLink(secretsSource: String? = nil) throws -> CloudLink {
        try CloudLink(repository: repository, lockTimeout: lockTimeout, secretsSource: secretsSource, maintain: writer.maintain)
    }

    /// The cloud as a repository when it is one on this machine, opened as someone else's
    /// (``Repository/openCloud(at:largestObject:)``); nil otherwise.
    func localCloudRepository() throws -> Repository? {
        guard let url = try repository.remoteURL("origin"), case let .local(path) = CloudAddress(url).transport else { return nil }
        return try? Repository.openCloud(at: path, largestObject: limits().objectSize)
    }
}
