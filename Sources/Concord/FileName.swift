/// Any text as one file name of Concord's own folders: `%` and `/` escaped as `%25` and `%2F`.
enum FileName {
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "/": out += "%2F"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The text a name stands for; nil when the name holds an escape Concord never writes.
    static func unescape(_ name: String) -> String? {
        var out = ""
        var iterator = name.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            guard scalar == "%" else {
                out.unicodeScalars.append(scalar)
                continue
            }
            guard let a = iterator.next(), let b = iterator.next() else { return nil }
            switch "\(a)\(b)".uppercased() {
            case "25": out += "%"
            case "2F": out += "/"
            default: return nil
            }
        }
        return out
    }
}
