import Foundation

/// What the client is told when the origin refuses a write with a 4xx: one mapping for every
/// generation.
///
/// - The origin refused the credentials (v1 403; v2/v2b 401 or 403, or a 400 whose text is
///   about the secret or the identifier): **403**.
/// - A product the origin does not know: **404**.
/// - Any other 4xx keeps its status.
///
/// The detail keeps the origin's own words: v1's `{"error":true,"reason":…}` reason, or the
/// text of a v2/v2b body (those are not JSON), cleaned of control characters and cut to 300
/// characters. Pure; any thread.
public struct OriginRefusal: Sendable, Hashable {
    public var status: Int
    public var detail: String
    /// Whether the origin refused the identifier or secret themselves (401, or a 400 whose
    /// text is about them), as opposed to the product (403: another vendor's). When the
    /// gateway wrote with credentials it holds, that is the gateway's fault, not the caller's.
    public var refusedCredentials: Bool

    /// - Parameter redacting: strings that must not reach the client, such as the vendor
    ///   identifier the gateway sent and the secret, should the origin echo them; each
    ///   becomes `[redacted]` in the detail.
    public init(originStatus: Int, body: [UInt8], redacting secrets: [String] = []) {
        var text = Self.text(of: body)
        let lowered = text?.lowercased() ?? ""
        for secret in secrets where !secret.isEmpty {
            text = text.map { Self.redact(secret, in: $0) }
        }
        let aboutCredentials = lowered.contains("secret") || lowered.contains("identifier") || lowered.contains("password")
        refusedCredentials = originStatus == 401 || (originStatus == 400 && aboutCredentials)
        switch originStatus {
        case 401, 403: status = 403
        case 400 where aboutCredentials: status = 403
        default: status = originStatus
        }
        detail = text ?? "The origin refused the request (\(originStatus))."
    }

    /// The reason the body gives, if any.
    static func text(of body: [UInt8]) -> String? {
        if let v1 = try? V1ErrorBody(json: body), !v1.reason.isEmpty { return clean(v1.reason) }
        guard !body.isEmpty, let text = String(validating: body, as: UTF8.self) else { return nil }
        let cleaned = clean(text)
        return cleaned.isEmpty ? nil : cleaned
    }

    private static func clean(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(scalar.properties.generalCategory == .control ? " " : scalar)
        }
        var cleaned = String(scalars).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        if cleaned.count > 300 { cleaned = String(cleaned.prefix(300)) + "…" }
        return cleaned
    }

    /// `text` with every whole occurrence of `secret` (not part of a longer word: no letter,
    /// digit, `-` or `_` right before or after it) replaced by `[redacted]`, so that a short
    /// secret such as `r` does not cut words it happens to be in.
    static func redact(_ secret: String, in text: String) -> String {
        func isWordCharacter(_ character: Character?) -> Bool {
            guard let character else { return false }
            return character.isLetter || character.isNumber || character == "-" || character == "_"
        }
        var result = ""
        var rest = text[...]
        while let range = rest.range(of: secret) {
            let before = range.lowerBound > rest.startIndex ? rest[rest.index(before: range.lowerBound)] : result.last
            let after = range.upperBound < rest.endIndex ? rest[range.upperBound] : nil
            if isWordCharacter(before) || isWordCharacter(after) {
                result += rest[..<range.upperBound]
            } else {
                result += rest[..<range.lowerBound] + "[redacted]"
            }
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
