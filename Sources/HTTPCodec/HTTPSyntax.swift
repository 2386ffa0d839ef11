/// The byte classes of RFC 9110 for code that builds messages (header names and values a
/// handler made must be checked before they are written).
public enum HTTPSyntax {
    /// A tchar (RFC 9110 §5.6.2).
    public static func isTokenByte(_ byte: UInt8) -> Bool { ASCII.isToken(byte) }

    /// A byte allowed in a field value: HTAB, SP, VCHAR, obs-text (RFC 9110 §5.5).
    public static func isFieldValueByte(_ byte: UInt8) -> Bool { ASCII.isFieldValue(byte) }
}
