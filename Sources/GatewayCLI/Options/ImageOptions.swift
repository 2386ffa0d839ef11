import ArgumentParser
import Foundation
import Gateway

/// Images: their public URLs and signing key, where they may come from, the memory and
/// disk tiers, the widths and formats rendered, and what uploads are made to fit.
struct ImageOptions: ConfigurationOptions {
    static let title = "Images"
    static let secrets = ["image-signing-key"]

    @Option(help: "Public base URL of the gateway (https://api.example.com): image URLs in responses are absolute under it; without it they are root-relative. (env: GATEWAY_PUBLIC_URL)")
    var publicUrl: String?

    @Option(help: "Directory for the generated image signing key and cached images. (env: GATEWAY_CACHE_DIR)")
    var cacheDir: String = ".gateway-cache"

    @Option(help: "Key (at least 16 characters) signing image URLs; without it a key is generated once and kept in --cache-dir. (env: GATEWAY_IMAGE_SIGNING_KEY)")
    var imageSigningKey: String?

    @Option(help: ArgumentHelp("Host (host or host:port) images may come from besides the origin's; repeatable, or comma-separated. A literal IP address listed here may be internal. (env: GATEWAY_IMAGE_HOST)", valueName: "host"))
    var imageHost: [String] = []

    @Option(help: "Largest image fetched, in bytes. (env: GATEWAY_MAX_IMAGE_BYTES)")
    var maxImageBytes: Int = 10 << 20

    @Option(help: "Bytes of images the memory tier may hold. (env: GATEWAY_IMAGE_MEMORY_BYTES)")
    var imageMemoryBytes: Int = 64 << 20

    @Option(help: "Bytes of images the disk tier under --cache-dir may hold; 0 turns it off. (env: GATEWAY_IMAGE_DISK_BYTES)")
    var imageDiskBytes: Int = 1 << 30

    @Option(help: "Whether image tokens of the earlier layout, which show the origin's URL, are still accepted (true or false); tokens made now are always sealed. Off by default: turn it on only while such tokens are still in the wild. (env: GATEWAY_LEGACY_IMAGE_TOKENS)")
    var legacyImageTokens: Bool = false

    @Option(help: "The origin's limit per uploaded image, in bytes: larger uploads are made smaller (quality, then size) until they fit. (env: GATEWAY_ORIGIN_IMAGE_MAX_BYTES)")
    var originImageMaxBytes: Int = 307_200

    @Option(help: "Widths images may be asked at (?w=), comma-separated; any other width is refused with 400. (env: GATEWAY_IMAGE_WIDTHS)")
    var imageWidths: String = "160,320,480,640,960,1280"

    @Option(help: "Newer formats sent to clients whose Accept names them: avif,webp, webp, avif, or none (only the sources' own formats). (env: GATEWAY_IMAGE_FORMATS)")
    var imageFormats: String = "avif,webp"

    @Option(help: "AVIF encoder speed, 0 (slowest, smallest files) to 9 (fastest). (env: GATEWAY_AVIF_SPEED)")
    var avifSpeed: Int = 8

    @Option(help: "Images with more pixels than this are refused from their header, undecoded. (env: GATEWAY_MAX_IMAGE_PIXELS)")
    var maxImagePixels: Int = 40_000_000

    @Option(help: "Seconds one image render may take before it is stopped (502). (env: GATEWAY_IMAGE_RENDER_TIMEOUT)")
    var imageRenderTimeout: Double = 10

    @Option(help: "Seconds a list or detail asked with include=placeholders waits, on a miss, for the placeholders being computed (at most 1; 0: not at all). (env: GATEWAY_PLACEHOLDER_WAIT)")
    var placeholderWait: Double = 0.15

    /// `--image-host` values, each possibly a comma-separated list (as the environment
    /// variable gives them).
    var imageHosts: [String] {
        imageHost.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func validate() throws {
        guard originImageMaxBytes >= 1024 else { throw ValidationError("--origin-image-max-bytes must be at least 1024.") }
        guard maxImageBytes > 0, imageMemoryBytes >= 0, imageDiskBytes >= 0 else {
            throw ValidationError("--max-image-bytes must be positive, --image-memory-bytes and --image-disk-bytes not negative.")
        }
        guard ImageConfiguration.widths(imageWidths) != nil else {
            throw ValidationError("--image-widths must be 1 to 16 comma-separated widths, each 16 to 4096.")
        }
        guard ImageConfiguration.formats(imageFormats) != nil else {
            throw ValidationError("--image-formats must be avif, webp, both comma-separated, or none.")
        }
        guard (0...9).contains(avifSpeed) else { throw ValidationError("--avif-speed must be 0 to 9.") }
        guard maxImagePixels >= 1 else { throw ValidationError("--max-image-pixels must be positive.") }
        guard imageRenderTimeout > 0, imageRenderTimeout <= 300 else {
            throw ValidationError("--image-render-timeout must be more than 0 and at most 300 seconds.")
        }
        guard placeholderWait >= 0, placeholderWait <= 1 else { throw ValidationError("--placeholder-wait must be 0 to 1 second.") }
        guard imageSigningKey.map({ $0.utf8.count >= 16 }) ?? true else {
            throw ValidationError("--image-signing-key must be at least 16 characters.")
        }
        guard !cacheDir.isEmpty else { throw ValidationError("--cache-dir must not be empty.") }
        for host in imageHosts where !ImageConfiguration.isValidHost(host) {
            throw ValidationError("--image-host \(host) must be a host name or IP address, with an optional :port.")
        }
        if let publicUrl {
            guard let url = URL(string: publicUrl), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                url.host != nil, url.query == nil
            else { throw ValidationError("--public-url must be an http or https URL with a host, like https://api.example.com.") }
        }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        configuration.images.publicURL = publicUrl
        configuration.images.cacheDirectory = cacheDir
        configuration.images.signingKey = imageSigningKey
        configuration.images.allowedHosts = imageHosts
        configuration.images.maxImageBytes = maxImageBytes
        configuration.images.memoryBytes = imageMemoryBytes
        configuration.images.diskBytes = imageDiskBytes
        configuration.images.legacyTokens = legacyImageTokens
        configuration.images.originImageMaxBytes = originImageMaxBytes
        configuration.images.widths = ImageConfiguration.widths(imageWidths) ?? configuration.images.widths
        configuration.images.formats = ImageConfiguration.formats(imageFormats) ?? configuration.images.formats
        configuration.images.avifSpeed = avifSpeed
        configuration.images.maxPixels = maxImagePixels
        configuration.images.renderTimeout = .milliseconds(Int64(imageRenderTimeout * 1000))
        configuration.readPath.placeholderWait = .milliseconds(Int64((placeholderWait * 1000).rounded()))
    }
}
