

/// JSON read with its object keys in the order written (Foundation's parser forgets the
/// order), to compare the demo origin's key order with the captured samples'. Strings and
/// other scalars are kept as their raw text; enough for well-formed bodies.
indirect enum OrderedJSON {
    case object([(key: String, value: OrderedJSON)])
    case array([OrderedJSON])
    case scalar(String)

    struct Malformed: Error {}

    static func parse(_ bytes: [UInt8]) throws -> OrderedJSON {
        var index = 0
        return try value(bytes, &index)
    }

    static func parse(_ text: String) throws -> OrderedJSON { try parse(Array(text.utf8)) }

    /// The object's keys in order; empty for anything else.
    var keys: [String] {
        if case .object(let members) = self { members.map(\.key) } else { [] }
    }

    subscript(key: String) -> OrderedJSON? {
        if case .object(let members) = self { members.first { $0.key == key }?.value } else { nil }
    }

    subscript(index: Int) -> OrderedJSON? {
        if case .array(let items) = self, items.indices.contains(index) { items[index] } else { nil }
    }

    var count: Int {
        if case .array(let items) = self { items.count } else { 0 }
    }

    private static func skipSpace(_ b: [UInt8], _ i: inout Int) {
        while i < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 }
    }

    private static func value(_ b: [UInt8], _ i: inout Int) throws -> OrderedJSON {
        skipSpace(b, &i)
        guard i < b.count else { throw Malformed() }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [(key: String, value: OrderedJSON)] = []
            skipSpace(b, &i)
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace(b, &i)
                let key = try string(b, &i)
                skipSpace(b, &i)
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw Malformed() }
                i += 1
                members.append((key, try value(b, &i)))
                skipSpace(b, &i)
                guard i < b.count else { throw Malformed() }
                i += 1
                if b[i - 1] == UInt8(ascii: "}") { return .object(members) }
                guard b[i - 1] == UInt8(ascii: ",") else { throw Malformed() }
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [OrderedJSON] = []
            skipSpace(b, &i)
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                items.append(try value(b, &i))
                skipSpace(b, &i)
                guard i < b.count else { throw Malformed() }
                i += 1
                if b[i - 1] == UInt8(ascii: "]") { return .array(items) }
                guard b[i - 1] == UInt8(ascii: ",") else { throw Malformed() }
            }
        case UInt8(ascii: "\""):
            return .scalar(try string(b, &i))
        default:
            let start = i
            while i < b.count, ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 }
            return .scalar(String(decoding: b[start..<i], as: UTF8.self))
        }
    }

    /// A string's raw text between its quotes (escapes left as written).
    private static func string(_ b: [UInt8], _ i: inout Int) throws -> String {
        guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw Malformed() }
        i += 1
        let start = i
        while i < b.count, b[i] != UInt8(ascii: "\"") { i += b[i] == UInt8(ascii: "\\") ? 2 : 1 }
        guard i < b.count else { throw Malformed() }
        i += 1
        return String(decoding: b[start..<i - 1], as: UTF8.self)
    }
}
