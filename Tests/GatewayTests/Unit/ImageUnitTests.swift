import Foundation
@testable import HTTPInterface
import Testing
@testable import Gateway
import GatewayModels
import GatewaySupport

@Suite struct ImageSignerTests {
    let signer = ImageSigner(key: Array("unit-test-key-0123456789".utf8))

    /// A sealed token: one base64url piece that opens to its URL, the same for the same URL
    /// and key (on any replica, after any restart), revealing nothing of the URL.
    @Test func aTokenSealsItsURL() throws {
        let url = "https://cdn.example.com/a b/사진.png?x=1&y=2"
        let token = signer.token(for: url)
        #expect(signer.url(from: token) == url)
        #expect(!token.contains("/") && !token.contains("+") && !token.contains("=") && !token.contains("."))
        #expect(signer.token(for: url) == token, "the same URL, the same token")
        #expect(ImageSigner(key: Array("unit-test-key-0123456789".utf8)).token(for: url) == token, "another process, the same key")
        let bytes = try #require(token.withCString { _ in Optional(Array(token.utf8)) })
        let box = try #require(bytes.withUnsafeBufferPointer { ImageToken.sealed($0) })
        #expect(box.count == 12 + Array(url.utf8).count + 16)
        for part in ["cdn.example.com", "example", "https", "png", "사진"] {
            #expect(!box.contains(Array(part.utf8)), "\(part)")
            #expect(!token.contains(ImageToken.base64URL(Array(part.utf8)).dropLast(2)), "\(part)")
        }
        // Two URLs, two nonces: no ciphertext XOR to read.
        let other = try #require(Array(signer.token(for: url + "x").utf8).withUnsafeBufferPointer { ImageToken.sealed($0) })
        #expect(other.prefix(12) != box.prefix(12))
    }

    @Test func alteredOrForeignTokensDoNotOpen() {
        let token = signer.token(for: "http://origin/images/1-1.png")
        let other = ImageSigner(key: Array("another-key-0123456789".utf8))
        #expect(other.url(from: token) == nil)
        var bytes = Array(token.utf8)
        for index in [0, 1, 5, bytes.count / 2, bytes.count - 2] {
            let original = bytes[index]
            bytes[index] = original == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(signer.url(from: String(decoding: bytes, as: UTF8.self)) == nil, "byte \(index)")
            bytes[index] = original
        }
        #expect(signer.url(from: String(token.dropLast(4))) == nil)
        #expect(signer.url(from: token + "A") == nil)
        #expect(signer.url(from: "") == nil)
        #expect(signer.url(from: String(repeating: "A", count: 5000)) == nil)
        // Another version byte, the same box.
        let box = Array(token.utf8).withUnsafeBufferPointer { ImageToken.sealed($0) } ?? []
        #expect(signer.url(from: ImageToken.base64URL([2] + box)) == nil)
    }

    @Test func everyLengthRoundTrips() {
        for length in 0..<70 {
            let url = "http://origin/" + String(repeating: "x", count: length) + "é"
            #expect(signer.url(from: signer.token(for: url)) == url, "\(length)")
        }
        #expect(signer.url(from: signer.token(for: "")) == nil, "an empty URL makes a token too short to read")
    }

    /// Legacy tokens (readable URL, HMAC) still open while `--legacy-image-tokens` is on, and
    /// only in their canonical encoding; never once it is off.
    @Test func legacyTokensOpenUntilTurnedOff() {
        let signer = ImageSigner(key: Array("unit-test-key-0123456789".utf8), legacyTokens: true)
        let legacy = signer.legacyToken(for: "A")
        #expect(legacy.hasPrefix("QQ."))
        #expect(signer.url(from: legacy) == "A")
        // "QR" decodes to "A" too, with bits left over: refused.
        #expect(signer.url(from: "QR" + legacy.dropFirst(2)) == nil)
        #expect(signer.url(from: "QQ=" + legacy.dropFirst(2)) == nil)
        let parts = legacy.split(separator: ".")
        #expect(signer.url(from: ImageToken.base64URL(Array("B".utf8)) + "." + parts[1]) == nil)
        let strict = ImageSigner(key: Array("unit-test-key-0123456789".utf8), legacyTokens: false)
        #expect(strict.url(from: legacy) == nil)
        #expect(strict.url(from: strict.token(for: "A")) == "A")
    }

    @Test func aGeneratedKeyIsKeptInTheCacheDirectoryAndReused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signer-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ImageConfiguration()
        configuration.cacheDirectory = directory
        let first = try ImageSigner.make(for: configuration)
        let second = try ImageSigner.make(for: configuration)
        let token = first.token(for: "http://origin/x.png")
        #expect(second.url(from: token) == "http://origin/x.png")
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/image-signing.key")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((attributes[.size] as? NSNumber)?.intValue == 64)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["image-signing.key"])
    }
}

@Suite struct ResolvedAddressTests {
    @Test func internalAddressesAreRecognised() throws {
        let internalAddresses = [
            "127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
            "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
            "ff02::1", "64:ff9b::a00:1", "2002:a00:1::1",
        ]
        for text in internalAddresses {
            let address = try #require(ResolvedAddress(numeric: text), "\(text)")
            #expect(address.isInternal, "\(text)")
        }
        for text in ["8.8.8.8", "172.32.0.1", "100.128.0.1", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"] {
            let address = try #require(ResolvedAddress(numeric: text), "\(text)")
            #expect(!address.isInternal, "\(text)")
        }
    }

    @Test func parsesAndPrintsNumericAddressesOnly() {
        #expect(ResolvedAddress(numeric: "[::1]")?.description == "0:0:0:0:0:0:0:1")
        #expect(ResolvedAddress(numeric: "10.0.0.7")?.bytes == [10, 0, 0, 7])
        #expect(ResolvedAddress(numeric: "2001:db8::ff00:42:8329")?.description == "2001:db8:0:0:0:ff00:42:8329")
        for text in ["localhost", "256.1.1.1", "1.2.3", "1::2::3", "example.com", "01.2.3.4.5"] {
            #expect(ResolvedAddress(numeric: text) == nil, "\(text)")
        }
    }

    @Test func theResolverReturnsNumericAddressesAsTheyAre() {
        #expect(AddressResolver.resolve("127.0.0.1").map(\.description) == ["127.0.0.1"])
        #expect(AddressResolver.resolve("::1").map(\.description) == ["0:0:0:0:0:0:0:1"])
    }
}

@Suite struct ImageHostPolicyTests {
    let policy = ImageHostPolicy(
        origin: try! OriginEndpoint(url: "http://127.0.0.1:8081"), allowedHosts: ["cdn.example.com", "img.example.com:8443", "10.0.0.5"])

    @Test func onlyTheOriginAndListedHostsOnTheirPorts() {
        func check(_ url: String) -> Bool? { ImageDestination(url: url).flatMap { policy.internalAddressesAllowed(for: $0) } }
        #expect(check("http://127.0.0.1:8081/images/1-1.png") == true)
        #expect(check("http://127.0.0.1:8082/images/1-1.png") == nil)
        #expect(check("https://cdn.example.com/a.png") == false)
        #expect(check("http://CDN.example.com/a.png") == false)
        #expect(check("http://cdn.example.com:8080/a.png") == nil)
        #expect(check("https://img.example.com:8443/a.png") == false)
        #expect(check("https://img.example.com/a.png") == nil)
        #expect(check("http://10.0.0.5/a.png") == true)
        #expect(check("http://evil.example.com/a.png") == nil)
        #expect(check("ftp://cdn.example.com/a.png") == nil)
        #expect(check("http://user@cdn.example.com/a.png") == nil)
    }

    @Test func destinationsResolveRedirectsAgainstTheirBase() throws {
        let base = try #require(ImageDestination(url: "http://cdn.example.com/a/b.png?x=1"))
        let relative = try #require(ImageDestination(url: "../c.png", relativeTo: base.url))
        #expect(relative == ImageDestination(url: "http://cdn.example.com/c.png"))
        #expect(relative.target == "/c.png")
        #expect(base.target == "/a/b.png?x=1")
        #expect(base.port == 80)
    }
}

@Suite struct ImageDiskCacheTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 100)

    static func image(_ body: [UInt8] = png) -> CachedPage {
        CachedPage(status: 200, contentType: "image/png", identity: body, gzip: nil, storedAt: .now, timeToLive: .seconds(60))
    }

    static func read(_ cache: ImageDiskCache, _ url: String) -> CachedPage? {
        let box = Locked<CachedPage?>(nil)
        cache.read(.source(url)) { image in box.withLock { $0 = image } }
        cache.drain()
        return box.withLock { $0 }
    }

    func withDirectory(_ body: (String) throws -> Void) rethrows {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disk-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    @Test func theFormatRoundTripsAndRefusesDamage() throws {
        let file = try #require(ImageFileFormat.encode(Self.png, contentType: "image/png"))
        #expect(file.count == ImageFileFormat.headerSize + Self.png.count)
        #expect(ImageFileFormat.decode(file)?.contentType == "image/png")
        #expect(ImageFileFormat.decode(file)?.body == Self.png)
        // Placeholder records are the sixth type; other content types are refused.
        let record = try #require(ImageFileFormat.encode([1, 2, 3], contentType: ImageFileFormat.placeholderType))
        #expect(record[5] == 5)
        #expect(ImageFileFormat.decode(record)?.contentType == ImageFileFormat.placeholderType)
        #expect(ImageFileFormat.encode([1], contentType: "application/json") == nil)
        #expect(ImageFileFormat.decode(Array(file.dropLast())) == nil, "partial")
        #expect(ImageFileFormat.decode(file + [0]) == nil, "too long")
        var flipped = file
        flipped[flipped.count - 1] ^= 1
        #expect(ImageFileFormat.decode(flipped) == nil, "corrupt")
        #expect(ImageFileFormat.encode(Self.png, contentType: "image/svg+xml") == nil)
    }

    @Test func imagesSurviveARebuildAndDamagedFilesAreDropped() throws {
        try withDirectory { directory in
            let cache = try ImageDiskCache(directory: directory, budget: 10_000)
            for name in ["a", "b", "c"] { cache.write(Self.image(), for: .source("http://origin/\(name).png")) }
            cache.drain()
            #expect(cache.count == 3)
            // A partial file (cut short), a corrupt one (same length, a byte changed), and
            // leftovers: a temporary file and a foreign one.
            let partial = directory + "/" + ImageDiskCache.fileName(for: .source("http://origin/b.png"))
            let corrupt = directory + "/" + ImageDiskCache.fileName(for: .source("http://origin/c.png"))
            let bytes = try #require(FileManager.default.contents(atPath: partial))
            try Data(bytes.dropLast(10)).write(to: URL(fileURLWithPath: partial))
            var damaged = [UInt8](try #require(FileManager.default.contents(atPath: corrupt)))
            damaged[damaged.count - 1] ^= 0xFF
            try Data(damaged).write(to: URL(fileURLWithPath: corrupt))
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: partial + ".123.tmp"))
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: directory + "/notes.txt"))

            let rebuilt = try ImageDiskCache(directory: directory, budget: 10_000)
            #expect(rebuilt.count == 2, "the partial file is dropped at start")
            #expect(Self.read(rebuilt, "http://origin/a.png")?.identity == Self.png)
            #expect(Self.read(rebuilt, "http://origin/a.png")?.contentType == "image/png")
            #expect(Self.read(rebuilt, "http://origin/c.png") == nil, "the corrupt file is dropped when read")
            #expect(Self.read(rebuilt, "http://origin/b.png") == nil)
            #expect(rebuilt.count == 1)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(left == [ImageDiskCache.fileName(for: .source("http://origin/a.png"))])
        }
    }

    @Test func theBudgetEvictsTheLeastRecentlyUsedFiles() throws {
        try withDirectory { directory in
            let size = ImageFileFormat.headerSize + Self.png.count
            let cache = try ImageDiskCache(directory: directory, budget: size * 2)
            cache.write(Self.image(), for: .source("http://origin/1.png"))
            cache.write(Self.image(), for: .source("http://origin/2.png"))
            cache.drain()
            #expect(Self.read(cache, "http://origin/1.png") != nil)
            cache.write(Self.image(), for: .source("http://origin/3.png"))
            cache.drain()
            #expect(cache.bytes == size * 2)
            #expect(Self.read(cache, "http://origin/2.png") == nil)
            #expect(Self.read(cache, "http://origin/1.png") != nil)
            #expect(Self.read(cache, "http://origin/3.png") != nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 2)
            // Larger than the whole budget: not stored.
            cache.write(Self.image(Self.png + Array(repeating: 0, count: size * 2)), for: .source("http://origin/big.png"))
            cache.drain()
            #expect(Self.read(cache, "http://origin/big.png") == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 2)
        }
    }
}

@Suite struct ImageVariantSettingsTests {
    @Test func widthListsAreReadStrictly() {
        #expect(ImageConfiguration.widths("160,320,480,640,960,1280") == [160, 320, 480, 640, 960, 1280])
        #expect(ImageConfiguration.widths(" 640, 160 ,160") == [160, 640])
        for bad in ["", "0", "15", "4097", "160,,320", "160;320", "+160", "abc", Array(repeating: "100", count: 1).joined() + "0x"] {
            #expect(ImageConfiguration.widths(bad) == nil, "\(bad)")
        }
        #expect(ImageConfiguration.widths((16...32).map(String.init).joined(separator: ",")) == nil, "17 widths")
    }

    @Test func formatListsAreReadStrictly() {
        #expect(ImageConfiguration.formats("avif,webp") == [.avif, .webp])
        #expect(ImageConfiguration.formats("WEBP") == [.webp])
        #expect(ImageConfiguration.formats("none") == [])
        for bad in ["", "jpeg", "avif,none", ","] { #expect(ImageConfiguration.formats(bad) == nil, "\(bad)") }
    }

    /// `?w=` on the stored-answer path: digits naming an allowed width, nothing else.
    @Test func widthsFromTheQuery() {
        let allowed = [160, 320]
        func width(_ text: String) -> Int? { Array(text.utf8).withUnsafeBytes { ImageReads.width($0, allowed: allowed) } }
        #expect(width("320") == 320)
        #expect(width("0320") == 320)
        for bad in ["", "300", "-320", "320x", "1e3", "000000320", "３２０"] { #expect(width(bad) == nil, "\(bad)") }
    }

    /// Variants are named by normalised parts only; a source is named by its URL, as before.
    @Test func variantNames() {
        #expect(ImageVariant.source("http://o/a.png").description == "http://o/a.png")
        #expect(ImageVariant(url: "http://o/a.png", width: 320, choice: .webp).description == "variant\nhttp://o/a.png\n320\nwebp")
        #expect(ImageVariant(url: "http://o/a.png", width: 0, choice: .original) != ImageVariant.source("http://o/a.png"))
        // No fetchable URL names a variant's file (a source URL starts with http: or https:).
        let variant = ImageVariant(url: "http://o/a.png", width: 320, choice: .webp)
        #expect(ImageDiskCache.fileName(for: .source("http://o/a.png#w=320&f=webp")) != ImageDiskCache.fileName(for: variant))
    }
}
