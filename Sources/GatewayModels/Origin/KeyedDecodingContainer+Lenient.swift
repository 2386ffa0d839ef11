import Foundation

/// Decoding helpers for the origin's loosely typed numbers.
///
/// The origin writes prices as `2000`, `2000.0` or `1.23123123E8` (Jackson), so prices are read
/// as `Decimal`: Foundation's `JSONDecoder` builds a `Decimal` from the number's text, not from a
/// `Double` (checked by the tests: `16.9` stays `16.9`). A number sent as a JSON string is
/// accepted too, with strict number grammar.
extension KeyedDecodingContainer {
    func decodeDecimal(forKey key: Key) throws -> Decimal {
        if let value = try? decode(Decimal.self, forKey: key) { return value }
        let text = try decode(String.self, forKey: key)
        guard let value = DecimalText.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a number: \(text)")
        }
        return value
    }

    func decodeDecimalIfPresent(forKey key: Key) throws -> Decimal? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeDecimal(forKey: key)
    }

    /// An integer that may have been written as `3`, `3.0` or `"3"`.
    func decodeInt64(forKey key: Key) throws -> Int64 {
        if let value = try? decode(Int64.self, forKey: key) { return value }
        guard let value = DecimalText.int64(try decodeDecimal(forKey: key)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a 64-bit integer")
        }
        return value
    }
}
