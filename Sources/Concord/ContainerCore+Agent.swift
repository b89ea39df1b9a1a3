internal import FoundationEssentials
internal import Git
internal import GitFormat

extension ContainerCore {
    /// The folder of the cloud when it is a bare repository on this machine (the agent watches
    /// its references to learn of other devices' pushes at once); nil for a network cloud.
    func localCloudFolder() -> String? {
        guard let url = try? repository.remoteURL("origin"), case let .local(path) = CloudAddress(url).transport else { return nil }
        let manager = FileManager.default
        guard manager.fileExists(atPath: "\(path)/refs/heads"), !manager.fileExists(atPath: "\(path)/.git") else { return nil }
        return path
    }

    /// True when the container's cloud is reached over the network (ssh, https, http,
    /// `git://`): the agent checks its `main` between syncs (``CloudPeek``).
    func hasNetworkCloud() -> Bool {
        guard let url = try? repository.remoteURL("origin") else { return false }
        if case .local = CloudAddress(url).transport { return false }
        return true
    }

    /// Reads the agent's view; `cloud` is the folder from ``localCloudFolder()``.
    func agentView(cloud: String?) throws -> AgentView {
        let origin = try ConcordError.wrap("cannot read origin/main") { try repository.resolve(ContainerLayout.remoteMain) }
        let cloudMain = cloud.flatMap { try? Repository.open(at: $0).resolve(ContainerLayout.main) }
        return AgentView(
            main: try history.head()?.hex, origin: origin?.hex, cloud: cloudMain?.hex,
            airplane: try DeviceSettings(repository: repository).isAirplaneModeOn(),
            conflicts: Set(try history.conflicts().map(\.document)))
    }
}
