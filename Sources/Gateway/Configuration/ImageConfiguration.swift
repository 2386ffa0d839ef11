import Foundation
import GatewayModels
import GatewaySupport

/// How `/v1/images/{token}` signs, fetches, renders and caches images.
public struct ImageConfiguration: Sendable {
    /// The HMAC key; nil to use (or create once) `image-signing.key` in `cacheDirectory`.
    public var signingKey: String?
    /// Where the generated signing key and the disk tier (`images/`) live.
    public var cacheDirectory: String = ".gateway-cache"
    /// The gateway's public base URL (`https://api.example.com`): image URLs in responses
    /// are absolute under it. Nil: root-relative (`/v1/images/…`).
    public var publicURL: String?
    /// Hosts images may come from besides the origin's: `host` or `host:port` (the scheme's
    /// default port when absent). Literal IP addresses listed here may be internal.
    public var allowedHosts: [String] = []
    /// The largest image fetched.
    public var maxImageBytes: Int = 10 * 1024 * 1024
    /// Bytes the memory tier may hold.
    public var memoryBytes: Int = 64 * 1024 * 1024
    /// Bytes the disk tier may hold (files, headers included); 0 turns it off.
    public var diskBytes: Int = 1024 * 1024 * 1024
    /// Redirects followed per fetch, each to an allowed destination.
    public var maxRedirects: Int = 3
    /// How long resolving an image host may take (the CLI uses `--origin-connect-timeout`).
    public var resolveTimeout: Duration = .seconds(2)

    /// The origin's limit per uploaded image (the v2 origin's 300 KB): larger uploads are
    /// made smaller until they fit.
    public var originImageMaxBytes: Int = 307_200
    /// Whether tokens of the earlier, readable layout (which show the origin URL) are still
    /// accepted; new tokens are always sealed. Off unless a deployment still has such tokens
    /// in the wild.
    public var legacyTokens: Bool = false
    /// The widths `?w=` may ask for; any other is refused (400), so no client can make the
    /// gateway render unbounded variants.
    public var widths: [Int] = [160, 320, 480, 640, 960, 1280]
    /// The newer formats sent to clients whose `Accept` names them.
    public var formats: Set<ImageAccept.Choice> = [.avif, .webp]
    /// AVIF encoder speed, 0 (slowest, smallest files) to 9 (fastest).
    public var avifSpeed: Int = 8
    /// Sources with more pixels than this (by their header) are refused undecoded.
    public var maxPixels: Int = 40_000_000
    /// How long one render may take before it is stopped (502).
    public var renderTimeout: Duration = .seconds(10)
    /// Threads rendering at once; by default one per core.
    public var renderWorkers: Int = GatewayConfiguration.defaultThreads
    /// Renders waiting for a worker before new ones are refused (503, `Retry-After`).
    public var maxWaitingRenders: Int = 64

    public init() {}

    /// `--image-widths`: a comma-separated list of 1 to 16 widths, each 16 to 4096 pixels;
    /// sorted, duplicates dropped. Nil when anything else.
    public static func widths(_ text: String) -> [Int]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var widths: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.count <= 4, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let width = Int(part),
                (16...4096).contains(width)
            else { return nil }
            widths.append(width)
        }
        let sorted = Array(Set(widths)).sorted()
        return (1...16).contains(sorted.count) ? sorted : nil
    }

    /// `--image-formats`: `avif`, `webp`, both (comma-separated, any order), or `none` (only
    /// the sources' own formats). Nil when anything else.
    public static func formats(_ text: String) -> Set<ImageAccept.Choice>? {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if parts == ["none"] { return [] }
        var formats: Set<ImageAccept.Choice> = []
        for part in parts {
            switch part {
            case "avif": formats.insert(.avif)
            case "webp": formats.insert(.webp)
            default: return nil
            }
        }
        return formats.isEmpty ? nil : formats
    }
}
