import Logging

/// The command line's log handler: each warning the library logs becomes one line on stderr,
/// `concord: warning: …`; less than a warning is not shown.
struct WarningLines: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        Output.printError("concord: \(event.level >= .error ? "error" : "warning"): \(event.message)")
    }
}
