import OpenAPIRuntime

/// Which image formats to ask the gateway for. It sends AVIF when `Accept` names
/// `image/avif`, else WebP when it names `image/webp`, else the source's own format (JPEG, PNG
/// or GIF); a wildcard never counts. Apple's systems decode WebP from iOS 14 and macOS 11, AVIF
/// from iOS 16 and macOS 13: naming a format the system cannot decode leaves an empty cell.
public enum ImageFormats {
    /// `Accept` for this system: AVIF and WebP where it decodes them, then any image.
    public static var acceptHeader: String {
        acceptHeader(avif: decodesAVIF, webp: decodesWebP)
    }

    /// `image/avif,image/webp,image/*;q=0.8` with both; the formats left out when `false`.
    public static func acceptHeader(avif: Bool, webp: Bool) -> String {
        var formats: [String] = []
        if avif { formats.append("image/avif") }
        if webp { formats.append("image/webp") }
        formats.append(formats.isEmpty ? "image/*" : "image/*;q=0.8")
        return formats.joined(separator: ",")
    }

    /// The same choice for the generated `getImage` operation's `accept` argument.
    public static var acceptableContentTypes: [AcceptHeaderContentType<Operations.GetImage.AcceptableContentType>] {
        acceptableContentTypes(avif: decodesAVIF, webp: decodesWebP)
    }

    /// AVIF and WebP as asked, then JPEG, PNG and GIF at q=0.8 (problems are always accepted).
    public static func acceptableContentTypes(avif: Bool, webp: Bool) -> [AcceptHeaderContentType<Operations.GetImage.AcceptableContentType>] {
        var types: [AcceptHeaderContentType<Operations.GetImage.AcceptableContentType>] = []
        if avif { types.append(.init(contentType: .imageAvif)) }
        if webp { types.append(.init(contentType: .imageWebp)) }
        for fallback: Operations.GetImage.AcceptableContentType in [.jpeg, .png, .imageGif] {
            types.append(.init(contentType: fallback, quality: 0.8))
        }
        types.append(.init(contentType: .applicationProblemJson))
        return types
    }

    /// Whether this system's image decoders read AVIF (iOS 16, macOS 13 and later; assumed
    /// elsewhere, where the app brings its own decoder).
    public static var decodesAVIF: Bool {
        if #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) { return true }
        return false
    }

    /// Whether this system's image decoders read WebP (iOS 14, macOS 11 and later).
    public static var decodesWebP: Bool {
        if #available(iOS 14, macOS 11, tvOS 14, watchOS 7, *) { return true }
        return false
    }
}
