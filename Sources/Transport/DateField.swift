import HTTPCodec

/// The `Date` header line of one loop, formatted once per second.
struct DateField {
    private(set) var line: [UInt8] = []
    /// The second the line holds.
    private(set) var second = -1

    init() {
        line.reserveCapacity(40)
    }

    /// Rebuilds the line when `secondsSinceEpoch` is not the second it holds.
    mutating func update(secondsSinceEpoch: Int) {
        guard secondsSinceEpoch != second else { return }
        second = secondsSinceEpoch
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: "Date: ".utf8)
        HTTPDate.append(secondsSinceEpoch: secondsSinceEpoch, to: &line)
        line.append(contentsOf: "\r\n".utf8)
    }
}
