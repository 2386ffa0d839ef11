/// Path segments that must be a positive decimal integer (`7`, not `07x`, `-1` or `+7`).
enum PositiveInteger {
    static func parse(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = Int64(text), value > 0
        else { return nil }
        return value
    }
}
