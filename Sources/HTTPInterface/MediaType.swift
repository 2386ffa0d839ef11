/// The media-type part of a `Content-Type` value, for the few decisions the gateway makes
/// on it (compress or not, which body decoder).
package enum MediaType {
    /// `type/subtype` in lower case, without parameters and spaces; `""` for nil.
    package static func essence(of contentType: String?) -> String {
        guard let contentType else { return "" }
        return contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces().lowercased() } ?? ""
    }

    /// `application/json` or any `application/…+json`.
    package static func isJSON(_ contentType: String?) -> Bool {
        let essence = essence(of: contentType)
        return essence == "application/json" || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }
}
