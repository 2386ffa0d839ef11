/// How `/v1/images/{token}` signs, fetches and caches images.
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

    public init() {}
}
