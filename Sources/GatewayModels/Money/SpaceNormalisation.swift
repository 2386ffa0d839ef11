/// Replaces the non-ASCII spaces ICU puts in formatted numbers with U+0020.
///
/// ICU writes U+00A0 NO-BREAK SPACE between an ISO code and the number, and some locales group
/// digits with U+202F NARROW NO-BREAK SPACE or U+2009 THIN SPACE. Clients render the contract's
/// strings as they are, so the contract promises plain ASCII spaces.
enum SpaceNormalisation {
    static func normalise(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00A0, 0x202F, 0x2009, 0x2007: scalars.append(" ")
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }
}
