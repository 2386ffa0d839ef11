import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Gateway image URLs at the width a view needs, so a phone downloads no more pixels than it
/// shows. The `thumbnails` and `images` URLs of an answer are full size; `w` picks one of the
/// widths the gateway renders (`--image-widths`), and any other width is refused with 400.
public struct ImageSizing: Sendable, Hashable {
    /// The widths the gateway renders, ascending, without repeats.
    public let widths: [Int]

    /// The contract's widths (openapi.yaml's `w`, the gateway's default `--image-widths`):
    /// 160, 320, 480, 640, 960 and 1280.
    public static let contractDefault = ImageSizing(
        validWidths: Operations.GetImage.Input.Query.WPayload.allCases.map(\.rawValue).sorted())

    /// For a gateway run with other `--image-widths`; `nil` when `widths` is empty or holds a
    /// width below 1.
    public init?(widths: [Int]) {
        guard !widths.isEmpty, widths.allSatisfy({ $0 >= 1 }) else { return nil }
        self.init(validWidths: Array(Set(widths)).sorted())
    }

    private init(validWidths: [Int]) { widths = validWidths }

    /// The smallest width of at least `points × scale` pixels (rounded up), or the largest
    /// width when none is that wide. A view 100 points wide on a 3× screen gets 320.
    public func width(points: Double, scale: Double) -> Int {
        let pixels = (points * scale).rounded(.up)
        guard pixels.isFinite else { return widths[widths.count - 1] }
        return widths.first { Double($0) >= pixels } ?? widths[widths.count - 1]
    }

    /// The image at the width for `points × scale` pixels: `reference` (a `thumbnails` or
    /// `images` member of an answer: a path such as `/v1/images/…`, or an absolute URL when the
    /// gateway has a `--public-url`) resolved against `serverURL`, with `w` set (an existing
    /// `w` replaced). `nil` when `reference` is not a URL reference.
    public func url(for reference: String, serverURL: URL, points: Double, scale: Double) -> URL? {
        guard let resolved = URL(string: reference, relativeTo: serverURL)?.absoluteURL,
              var components = URLComponents(url: resolved, resolvingAgainstBaseURL: false)
        else { return nil }
        var items = (components.queryItems ?? []).filter { $0.name != "w" }
        items.append(URLQueryItem(name: "w", value: String(width(points: points, scale: scale))))
        components.queryItems = items
        return components.url
    }

    /// A request for an image loader (URLSession, Nuke, Kingfisher): ``url(for:serverURL:points:scale:)``
    /// with `Accept` naming the formats this system decodes (``ImageFormats/acceptHeader``), so
    /// the gateway sends AVIF or WebP where it can. `nil` as for the URL.
    public func request(for reference: String, serverURL: URL, points: Double, scale: Double) -> URLRequest? {
        guard let url = url(for: reference, serverURL: serverURL, points: points, scale: scale) else { return nil }
        var request = URLRequest(url: url)
        request.setValue(ImageFormats.acceptHeader, forHTTPHeaderField: "Accept")
        return request
    }
}
