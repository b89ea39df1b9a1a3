extension StringProtocol {
    /// The text's lines: split at each line feed, with the carriage return before it dropped
    /// unless `keepingCarriageReturns`, so that a file written with CRLF line ends reads as one
    /// written with LF. (A `Character` holds `\r\n` as one, never equal to `"\n"`: split by
    /// characters, a CRLF file is a single line.) Empty lines are kept, and the text after the
    /// last line feed is a line too.
    package func lines(keepingCarriageReturns: Bool = false) -> [Substring] {
        Substring(self).unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            Substring(!keepingCarriageReturns && line.last == "\r" ? line.dropLast() : line)
        }
    }
}
