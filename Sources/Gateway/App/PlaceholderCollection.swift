import GatewayModels
import HTTPInterface

/// The placeholders of one page being mapped (`include=placeholders`): each image's as known
/// now, and the URLs still unknown, to prepare in the background. One per mapping; its lookup
/// may be called from the mapping's thread only (it is `Sendable` for the mapper's signature).
final class PlaceholderCollection: Sendable {
    private let images: ImageReads?
    private let unknown = Locked<[String]>([])

    init(images: ImageReads?) {
        self.images = images
    }

    /// The mapper's lookup: a ready placeholder, else nil (failed ones too); unknown URLs are
    /// noted.
    var lookup: ImagePlaceholderLookup {
        { [images, unknown] url in
            guard let images else { return nil }
            switch images.placeholder(for: url) {
            case .ready(let placeholder): return placeholder
            case .failed: return nil
            case .unknown:
                unknown.withLock { $0.append(url) }
                return nil
            }
        }
    }

    /// Starts preparing the unknown ones (deduplicated; at most
    /// ``ProductReads/maxPlaceholderPreparations`` at once process-wide, the rest left for a
    /// later read). True when any was unknown: the page is incomplete.
    func prepareMissing(origin: (any OriginSending)?, requestID: String) -> Bool {
        let urls = unknown.withLock { $0 }
        guard let images, !urls.isEmpty else { return false }
        var seen = Set<String>()
        for url in urls where seen.insert(url).inserted {
            guard images.placeholderPreparations.inProgress < ProductReads.maxPlaceholderPreparations else { break }
            images.preparePlaceholder(url, origin: origin, requestID: requestID) { _ in }
        }
        return true
    }
}
