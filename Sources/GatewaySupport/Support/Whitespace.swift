extension Substring {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    package func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}

extension String {
    package func trimmingSpaces() -> String { self[...].trimmingSpaces() }
}
