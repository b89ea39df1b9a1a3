import Concord
import ConcordMerge
import Foundation
import Testing

/// A throwaway folder with a cloud (a bare repository) and devices cloned from it.
final class Fixture {
    let folder: String
    let cloud: String
    private(set) var devices: [Container] = []

    /// Makes a cloud and `count` devices named `device1`, `device2`, …; the first creates the container.
    init(devices count: Int, packages: [String] = [], clock: (@Sendable (Int) -> @Sendable () -> Date)? = nil) throws {
        folder = NSTemporaryDirectory() + "concord-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        cloud = "\(folder)/cloud.git"
        for index in 1...count {
            var options = Container.Options()
            if let clock { options.now = clock(index) }
            let path = "\(folder)/device\(index)"
            if index == 1 {
                devices.append(try Container.create(at: path, deviceName: "device1", cloud: cloud, packagePatterns: packages, options: options))
            } else {
                devices.append(try Container.clone(from: cloud, to: path, deviceName: "device\(index)", options: options))
            }
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// Wall clocks for the devices: device `skewed` runs `seconds` ahead, the others are right.
    static func clock(ahead seconds: TimeInterval, onDevice skewed: Int) -> @Sendable (Int) -> @Sendable () -> Date {
        { index in
            let offset = index == skewed ? seconds : 0
            return { Date().addingTimeInterval(offset) }
        }
    }

    subscript(index: Int) -> Container { devices[index - 1] }

    /// Runs git in a device's folder (read-only inspection) and returns its output.
    @discardableResult
    func git(_ arguments: [String], in path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw ConcordError.failed("git \(arguments) failed: \(text)") }
        return text
    }

    /// Every device syncs, in order, `rounds` times.
    func syncAll(rounds: Int = 2) async throws {
        for _ in 0..<rounds {
            for device in devices { try await device.sync() }
        }
    }

    /// Devices 1 and 2 diverge on `path`: device 1 saves `base`, both sync, then device 1 and
    /// device 2 each save their content (nil: delete it), and all devices sync twice.
    func diverge(_ path: String, base: String, _ one: String?, _ two: String?) async throws {
        try await self[1].save(doc(path), content: text(base))
        try await syncAll(rounds: 1)
        for (index, value) in [(1, one), (2, two)] {
            if let value { try await self[index].save(doc(path), content: text(value)) } else { try await self[index].remove(doc(path)) }
        }
        try await syncAll()
    }

    /// The tree id of a device's main.
    func mainTree(_ index: Int) throws -> String {
        try git(["rev-parse", "main^{tree}"], in: self[index].root).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

func doc(_ path: String) -> DocumentPath { try! DocumentPath(path) }

func text(_ value: String) -> DocumentContent { .file(Data(value.utf8)) }

func string(_ content: DocumentContent?) -> String? {
    guard case let .file(data)? = content else { return nil }
    return String(decoding: data, as: UTF8.self)
}
