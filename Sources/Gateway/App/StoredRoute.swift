/// A route whose answers may already be stored (health, cache hits): its handler runs on the
/// loop before the request is copied out of the connection's buffer and answers from what
/// it holds, or declines, and the request then takes its ordinary route.
///
/// Only `GET` and `HEAD` requests without a body come here. The handler gets the request's
/// bytes and the path parameter (the segment at the pattern's `{…}`, raw; patterns have at
/// most one). It must not block, allocate on a hit, or keep any of the bytes.
public struct StoredRoute: Sendable {
    public typealias Handler = @Sendable (RequestBytes, UnsafeRawBufferPointer, inout StoredAnswer) -> Bool

    let pattern: PathPattern
    /// The literal segments' bytes, with nil at the parameter.
    let segments: [[UInt8]?]
    let handler: Handler

    init(pattern: String, handler: @escaping Handler) {
        self.pattern = PathPattern(pattern)
        segments = self.pattern.segments.map { segment in
            switch segment {
            case .literal(let text): Array(text.utf8)
            case .parameter: nil
            }
        }
        precondition(segments.filter { $0 == nil }.count <= 1, "stored routes take at most one parameter: \(pattern)")
        self.handler = handler
    }

    /// The parameter segment (empty when the pattern has none) when `path` matches: segments
    /// compared byte for byte. A path that needs decoding (`%`) or has empty or dot segments
    /// never matches here; the ordinary route judges it.
    func match(_ path: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard path.first == UInt8(ascii: "/") else { return nil }
        var parameter = UnsafeRawBufferPointer(start: path.baseAddress, count: 0)
        var index = 1
        var segmentNumber = 0
        if path.count == 1 { return segments.isEmpty ? parameter : nil }
        while index <= path.count {
            var end = index
            while end < path.count && path[end] != UInt8(ascii: "/") { end += 1 }
            guard segmentNumber < segments.count, end > index else { return nil }
            let segment = UnsafeRawBufferPointer(rebasing: path[index..<end])
            if let literal = segments[segmentNumber] {
                guard segment.elementsEqual(literal) else { return nil }
            } else {
                guard !segment.contains(UInt8(ascii: "%")), !(segment.count <= 2 && segment.allSatisfy { $0 == UInt8(ascii: ".") })
                else { return nil }
                parameter = segment
            }
            segmentNumber += 1
            index = end + 1
        }
        return segmentNumber == segments.count ? parameter : nil
    }
}
