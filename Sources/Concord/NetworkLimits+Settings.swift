internal import FoundationEssentials
internal import Git
internal import GitStore

extension NetworkLimits {
    /// The settings that name the time-out, for messages.
    static let timeoutSettings = "CONCORD_NETWORK_TIMEOUT or concord.networkTimeout"

    /// The limits of a container's network operations: the time-out from the environment
    /// (`CONCORD_NETWORK_TIMEOUT`), else the container's configuration (`concord.networkTimeout`),
    /// else 30 seconds; the limit on what a server sends before any object is fixed (32 MB).
    /// - Throws: ``ConcordError/failed(_:)`` when the time-out is not a number of seconds from
    ///   more than 0 to 86400.
    static func current(in repository: Repository?) throws -> NetworkLimits {
        let text = ProcessVariable.value("CONCORD_NETWORK_TIMEOUT") ?? (try? repository?.config(DeviceSettings.networkTimeoutKey)) ?? nil
        guard let text else { return NetworkLimits() }
        guard let seconds = Double(text.trimmingSpaces()), seconds > 0, seconds <= 86_400 else {
            throw ConcordError.failed("invalid time-out '\(text)' for \(timeoutSettings): give seconds, more than 0 and at most 86400")
        }
        return NetworkLimits(timeout: seconds)
    }
}
