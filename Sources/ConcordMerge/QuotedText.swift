/// Text that a file or the cloud gave, as an error message quotes it: as JSON writes a string
/// (in quotes, its control characters escaped, so that the message stays one line and sends
/// nothing to a terminal), cut after `limit` scalars (a character may hold any number of
/// combining marks) with `…` before the closing quote.
enum QuotedText {
    static func quoted(_ text: some StringProtocol, limit: Int = 40) -> String {
        let scalars = text.unicodeScalars
        let isCut = scalars.count > limit
        let shown = isCut ? String(String.UnicodeScalarView(scalars.prefix(limit))) : String(text)
        let written = String(decoding: JSONValue.string(shown).text(style: .compact), as: UTF8.self)
        return isCut ? written.dropLast() + "…\"" : written
    }
}
