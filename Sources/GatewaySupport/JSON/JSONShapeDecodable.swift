/// A type read from a ``JSONValue`` through a ``JSONObjectReader``; its `Decodable` conformance
/// comes for free and uses the same reading code, so `JSONDecoder` and the fast
/// ``JSONParser`` path can never disagree.
public protocol JSONShapeDecodable: Decodable, Sendable {
    /// Reads the value from one JSON object.
    /// - Throws: ``JSONShapeError`` for a missing or mistyped member.
    init(reading object: JSONObjectReader) throws(JSONShapeError)
}

extension JSONShapeDecodable {
    public init(from decoder: any Decoder) throws {
        try self.init(reading: JSONObjectReader(JSONValue(from: decoder)))
    }

    /// Parses `bytes` with ``JSONParser`` and reads the value.
    /// - Throws: ``JSONParser/Failure`` for bytes that are not JSON, ``JSONShapeError`` for the wrong shape.
    public init(json bytes: some Sequence<UInt8>) throws {
        try self.init(reading: JSONObjectReader(JSONParser.parse(bytes)))
    }
}
