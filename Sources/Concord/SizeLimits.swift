/// The size limits of a container as this device applies them (``Container/sizeLimits()``).
public struct SizeLimits: Sendable, Hashable {
    /// The largest file the container takes (`.concord/limits`; 100 MB when it names none).
    public var containerFileSize: Int
    /// The largest file this device saves and accepts now: the container's, up to 512 MB on the
    /// container's word alone, or this device's own setting.
    public var fileSize: Int
    /// True when this device's own setting (`CONCORD_MAX_OBJECT_SIZE`, `concord.maxObjectSize`)
    /// decides, not the container.
    public var fixedByDevice: Bool

    /// Reads `1024`, `64k`, `300m`, `2g` (powers of 1024) as the settings do; nil when malformed.
    public static func bytes(from text: String) -> Int? { ArrivalCheck.Limits.parseSize(text) }

    /// `300 MB`, `1.5 GB`: a size as Concord's messages write it.
    public static func text(_ bytes: Int) -> String { ArrivalCheck.format(bytes) }
}

extension Container {
    /// The container's file-size limit and this device's.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func sizeLimits() throws -> SizeLimits {
        try read { try $0.sizeLimits() }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func sizeLimits() async throws -> SizeLimits {
        try await offloadRead { try $0.sizeLimits() }
    }

    /// Sets the largest file the container takes, for every device (one commit of
    /// `.concord/limits`): each device saves files up to it, and accepts them from the cloud
    /// (up to 512 MB on the container's word alone; past that, each device's own
    /// `concord.maxObjectSize`).
    /// - Throws: ``ConcordError/failed(_:)`` for a size under 1 KB or over 2 GB; nothing changes then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func setFileSizeLimit(_ bytes: Int) throws {
        try write(.saved) { try $0.setFileSizeLimit(bytes) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func setFileSizeLimit(_ bytes: Int) async throws {
        try await offloadWrite(.saved) { try $0.setFileSizeLimit(bytes) }
    }
}

extension ContainerCore {
    func sizeLimits() throws -> SizeLimits {
        let limits = try limits()
        return SizeLimits(
            containerFileSize: ContainerLimits.fileSize(inMainOf: repository) ?? ContainerLimits.defaultFileSize, fileSize: limits.objectSize,
            fixedByDevice: limits.fixedByDevice)
    }

    func setFileSizeLimit(_ bytes: Int) throws {
        guard bytes >= 1024, bytes <= 2 << 30 else {
            throw ConcordError.failed("a file-size limit of \(ArrivalCheck.format(bytes)) is out of range: give 1 KB to 2 GB")
        }
        try saveSettings(ContainerLayout.limits, text: ContainerLimits(fileSize: bytes).text)
    }
}
