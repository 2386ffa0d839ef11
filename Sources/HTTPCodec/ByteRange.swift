/// A range of byte offsets into the buffer a decoder was given, relative to the start of the
/// message (the buffer's first byte). Valid only while the caller keeps that buffer as it was.
public struct ByteRange: Sendable, Hashable {
    public var lowerBound: Int
    public var upperBound: Int

    public init(_ lowerBound: Int, _ upperBound: Int) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    public static let empty = ByteRange(0, 0)

    public var count: Int { upperBound - lowerBound }
    public var isEmpty: Bool { upperBound == lowerBound }

    /// The bytes of this range in `buffer`.
    public func bytes(in buffer: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[lowerBound..<upperBound])
    }

    /// The bytes of this range in `buffer` as a new String (UTF-8, invalid bytes replaced).
    public func string(in buffer: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes(in: buffer), as: UTF8.self)
    }

    /// Whether the bytes equal `lowercase` with ASCII letters compared without case.
    /// `lowercase` must be lowercase ASCII.
    public func equalsIgnoringCase(_ lowercase: StaticString, in buffer: UnsafeRawBufferPointer) -> Bool {
        guard count == lowercase.utf8CodeUnitCount else { return false }
        let target = lowercase.utf8Start
        for offset in 0..<count where ASCII.lower(buffer[lowerBound + offset]) != target[offset] {
            return false
        }
        return true
    }

    /// Whether the bytes equal `other` exactly.
    public func equals(_ other: StaticString, in buffer: UnsafeRawBufferPointer) -> Bool {
        guard count == other.utf8CodeUnitCount else { return false }
        let target = other.utf8Start
        for offset in 0..<count where buffer[lowerBound + offset] != target[offset] {
            return false
        }
        return true
    }
}
