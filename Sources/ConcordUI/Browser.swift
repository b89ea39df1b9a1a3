internal import Foundation

/// Opens the page in the desktop's browser.
public enum Browser {
    /// Runs `xdg-open ADDRESS` when there is a desktop (`DISPLAY` or `WAYLAND_DISPLAY`) and
    /// `xdg-open` is installed; does nothing otherwise (the address is printed either way).
    public static func open(_ address: String) {
        let environment = ProcessInfo.processInfo.environment
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/xdg-open"
            guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: candidate)
            process.arguments = [address]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try? process.run()
            return
        }
    }
}
