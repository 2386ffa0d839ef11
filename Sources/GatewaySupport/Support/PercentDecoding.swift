import HTTPCodec

/// Percent-decoding of URL components (RFC 3986 §2.1).
package enum PercentDecoding {
    /// The decoded text, or nil when an escape is malformed or the bytes are not UTF-8.
    package static func decode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        if !text.utf8.contains(UInt8(ascii: "%")) && !(plusIsSpace && text.utf8.contains(UInt8(ascii: "+"))) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(ASCII.hexValue), let low = iterator.next().flatMap(ASCII.hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

}
