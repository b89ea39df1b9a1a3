import ConcordMerge
import Foundation

/// Builds merge inputs from strings.
enum Fixtures {
    static func version(
        _ text: String?, device: String, clock: Int64, current: Bool = false
    ) -> MergeVersion {
        MergeVersion(
            content: text.map { .file(Data($0.utf8)) }, id: "commit-\(device)-\(clock)",
            deviceName: device, deviceID: "id-\(device)", clock: HybridLogicalClock(milliseconds: clock),
            isCurrent: current)
    }

    /// Two versions: the current one on "mac" (clock 1), the other on "ipad" (clock 2).
    static func pair(_ current: String?, _ other: String?) -> [MergeVersion] {
        [version(current, device: "mac", clock: 1, current: true), version(other, device: "ipad", clock: 2)]
    }

    static func merge(_ policy: any MergePolicy, base: String?, _ current: String?, _ other: String?) -> MergeOutcome {
        policy.merge(base: base.map { .file(Data($0.utf8)) }, versions: pair(current, other))
    }

    /// The merged text, or nil when the outcome needs a person or has no file.
    static func text(_ outcome: MergeOutcome) -> String? {
        guard case let .merged(content?) = outcome, let data = content.fileData else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func needsPerson(_ outcome: MergeOutcome) -> Bool {
        if case .needsPerson = outcome { return true }
        return false
    }
}
