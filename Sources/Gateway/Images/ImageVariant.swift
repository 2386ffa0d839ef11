import GatewayModels
import ImageProcessing
import GatewaySupport

/// What the image tiers store, and what one render makes: an origin image at a width, in a
/// format. Made from normalised inputs only (the verified URL, a width from the allowed set,
/// the format `Accept` chose), never from raw query or header text.
struct ImageVariant: Hashable, Sendable, CustomStringConvertible {
    let url: String
    /// The width asked for (`?w=`); 0 for the source's own.
    let width: Int
    /// The format the request chose (`.original` for sources and placeholders).
    let choice: ImageAccept.Choice
    let kind: Kind

    enum Kind: Hashable, Sendable {
        /// A render.
        case rendered
        /// The origin's bytes, as fetched (kept on disk so a new variant needs no fetch).
        case source
        /// The source's ``ImagePlaceholder`` record.
        case placeholder
    }

    init(url: String, width: Int, choice: ImageAccept.Choice) {
        self.url = url
        self.width = width
        self.choice = choice
        kind = .rendered
    }

    private init(_ kind: Kind, url: String) {
        self.url = url
        width = 0
        choice = .original
        self.kind = kind
    }

    static func source(_ url: String) -> ImageVariant { ImageVariant(.source, url: url) }
    static func placeholder(_ url: String) -> ImageVariant { ImageVariant(.placeholder, url: url) }

    /// Whether the disk tier keeps its file open for hits sent with `sendfile` (renders and
    /// sources; a placeholder is read into memory once).
    var keepsFileOpen: Bool { kind != .placeholder }

    /// The name the disk tier files it under (hashed): the URL alone for a source, as before
    /// variants existed, so a disk tier of sources stays valid; a variant's starts with
    /// `variant` and a line feed, a placeholder's with `placeholder` and a line feed, and a
    /// source's URL with `http:` or `https:` (nothing else is fetched), so no source's name is
    /// ever another kind's (a URL ending in `#w=320&f=webp` would otherwise name the file of a
    /// real variant).
    var description: String {
        switch kind {
        case .source: url
        case .rendered: "variant\n\(url)\n\(width)\n\(choice)"
        case .placeholder: "placeholder\n\(url)"
        }
    }

    /// The format to write for a source of `format`.
    func outputFormat(source format: ImageFormat) -> ImageFormat {
        switch choice {
        case .avif: .avif
        case .webp: .webp
        case .original: format
        }
    }
}
