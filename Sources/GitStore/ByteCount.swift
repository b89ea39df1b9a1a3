/// A count of bytes as people read it, in the words Foundation's `ByteCountFormatter` uses:
/// "1 byte", "1,000 bytes", "4 KB", "1.5 MB", "4.66 GB" (kilobytes whole, megabytes to one decimal,
/// larger units to two, trailing zeros dropped, thousands grouped).
package enum ByteCount {
    /// How many bytes make a kilobyte.
    package enum Style: Sendable {
        /// 1,024: for limits and sizes in memory.
        case binary
        /// 1,000: for sizes on disk, as a file manager shows them.
        case decimal
    }

    /// `bytes` in the largest unit it makes at least one of.
    package static func text(_ bytes: Int, style: Style = .binary) -> String {
        let base = style == .binary ? 1024.0 : 1000.0
        let magnitude = Double(bytes.magnitude)
        guard magnitude >= base else {
            return (bytes < 0 ? "-" : "") + grouped(bytes.magnitude) + (bytes.magnitude == 1 ? " byte" : " bytes")
        }
        var unit = 0
        var value = magnitude / base
        while value >= base, unit < units.count - 1 {
            value /= base
            unit += 1
        }
        let decimals = min(unit, 2)
        let scale = [1.0, 10.0, 100.0][decimals]
        let scaled = Int((value * scale).rounded())
        var text = grouped(UInt(scaled / Int(scale)))
        var fraction = String(scaled % Int(scale))
        if decimals > 0 {
            fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            if !fraction.isEmpty { text += "." + fraction }
        }
        return (bytes < 0 ? "-" : "") + text + " " + units[unit]
    }

    /// `number` with a comma between each group of three digits.
    private static func grouped(_ number: UInt) -> String {
        let digits = String(number)
        let head = digits.count % 3 == 0 ? 3 : digits.count % 3
        var text = String(digits.prefix(head))
        var rest = digits.dropFirst(head)
        while !rest.isEmpty {
            text += "," + rest.prefix(3)
            rest = rest.dropFirst(3)
        }
        return text
    }

    private static let units = ["KB", "MB", "GB", "TB", "PB", "EB"]
}
