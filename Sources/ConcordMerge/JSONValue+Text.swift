public import FoundationEssentials

extension JSONValue {
    /// Parses a JSON text (RFC 8259, UTF-8; duplicate member names are refused).
    /// - Throws: ``JSONParseError`` naming the line and column of the first problem.
    public init(parsing data: Data) throws(JSONParseError) {
        self = try JSONParser.parse(Array(data)).value
    }

    /// The value written as JSON text in `style`, with no line break at the end.
    public func text(style: JSONStyle = .standard) -> Data {
        var writer = JSONWriter(style: style)
        writer.write(self, sources: [])
        return Data(writer.output)
    }
}
