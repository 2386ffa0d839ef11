import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
@testable import HTTPInterface
import Logging
@testable import Observability
@testable import Routing
import TestSupport
import Testing
import GatewaySupport

extension IntegrationTests {
    /// `/v1/images/{token}` through a real gateway, a demo origin and a second demo origin
    /// that is not the gateway's; both count every request.
    @Suite struct Images {
        static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

        @Test func aThumbnailFromTheProductListIsFetchedOnceThenServedFromMemory() async throws {
            try await ImageHarness.with { harness in
                let port = harness.port
                let (thumbnail, first, second, revalidated, head) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let list = try client.request("GET", "/v1/products?page=1")
                    let items = try #require(list.json()["items"] as? [[String: Any]])
                    let thumbnail = try #require((items[2]["thumbnails"] as? [String])?.first)
                    let first = try client.request("GET", thumbnail, headers: ["Accept-Encoding: gzip"])
                    let second = try client.request("GET", thumbnail, headers: ["Accept-Encoding: gzip"])
                    let revalidated = try client.request("GET", thumbnail, headers: ["If-None-Match: \(first.header("ETag") ?? "")"])
                    let head = try client.request("HEAD", thumbnail)
                    return (thumbnail, first, second, revalidated, head)
                }
                #expect(thumbnail.hasPrefix("/v1/images/"))
                #expect(thumbnail == harness.path(for: harness.originImage("/thumbnails/3-1.png")))
                #expect(first.status == 200)
                #expect(first.header("Content-Type") == "image/png")
                #expect(first.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(first.header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
                #expect(first.header("Content-Encoding") == nil)
                #expect(Array(first.body.prefix(8)) == Self.pngSignature)
                #expect(first.header("ETag") == EntityTag.strong(for: first.body))
                #expect(second.status == 200)
                #expect(second.header("Cache-Status") == "open-market-gateway; hit; detail=memory")
                #expect(second.body == first.body)
                #expect(second.header("ETag") == first.header("ETag"))
                #expect(revalidated.status == 304)
                #expect(revalidated.body.isEmpty)
                #expect(head.status == 200)
                #expect(head.body.isEmpty)
                #expect(head.header("Content-Length") == String(first.body.count))
                #expect(harness.origin.counts.count("GET", "/thumbnails/3-1.png") == 1)
            }
        }

        @Test func imageURLsAreAbsoluteUnderThePublicURL() async throws {
            try await ImageHarness.with(configure: { configuration, _ in
                configuration.images.publicURL = "https://api.example.com/"
            }) { harness in
                let port = harness.port
                let detail = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products/3") }
                let images = try #require(try detail.json()["images"] as? [String])
                #expect(images.first == "https://api.example.com" + harness.path(for: harness.originImage("/images/3-1.png")))
            }
        }

        @Test func aForgedOrAlteredTokenIsRefusedWithoutAnyOutboundRequest() async throws {
            // Legacy tokens on: altered tokens of the old layout are refused for their
            // signature, not only for their layout.
            try await ImageHarness.with(configure: { configuration, _ in configuration.images.legacyTokens = true }) { harness in
                let genuine = harness.images.signer.token(for: harness.originImage("/thumbnails/3-1.png"))
                let legacy = harness.images.signer.legacyToken(for: harness.originImage("/thumbnails/3-1.png"))
                let dot = legacy.firstIndex(of: ".")!
                let otherURL = ImageToken.base64URL(Array(harness.originImage("/thumbnails/4-1.png").utf8))
                let forgedKey = ImageSigner(key: Array("another-key-0123456789".utf8)).token(for: harness.originImage("/thumbnails/3-1.png"))
                var flipped = Array(genuine)
                flipped[flipped.count - 2] = flipped[flipped.count - 2] == "A" ? "B" : "A"
                let tokens = [
                    otherURL + String(legacy[dot...]),  // another URL, the old signature
                    forgedKey,  // sealed with another key
                    String(flipped),  // a tag bit changed
                    String(legacy[..<dot]),  // no signature
                    "not-a-token",
                ]
                let responses = try await harness.get(tokens.map { "/v1/images/" + $0 })
                for response in responses {
                    #expect(response.status == 403)
                    #expect(response.header("Content-Type") == "application/problem+json")
                    #expect(try response.json()["detail"] as? String == "The image token is not valid.")
                }
                #expect(harness.origin.counts.total == 0)
            }
        }

        @Test func loopbackAddressesThatAreNotTheOriginsAreRefused() async throws {
            try await ImageHarness.with(configure: { configuration, otherPort in
                // A listed host *name* that resolves to loopback is still refused.
                configuration.images.allowedHosts = ["localhost:\(otherPort)"]
            }) { harness in
                let otherPort = harness.otherURL.port!
                let paths = [
                    harness.path(for: harness.otherImage("/thumbnails/3-1.png")),  // not allowed at all
                    harness.path(for: "http://localhost:\(otherPort)/thumbnails/3-1.png"),  // allowed name, loopback address
                    harness.path(for: "http://[::ffff:127.0.0.1]:\(otherPort)/thumbnails/3-1.png"),
                    harness.path(for: "http://169.254.169.254/latest/meta-data/"),
                    harness.path(for: "file:///etc/passwd"),
                ]
                let responses = try await harness.get(paths)
                for response in responses {
                    #expect(response.status == 403)
                    #expect(try response.json()["detail"] as? String == "The image's address is not allowed.")
                }
                #expect(harness.other.counts.total == 0)
            }
        }

        @Test func aLiteralAddressListedExplicitlyMayBeInternal() async throws {
            try await ImageHarness.with(configure: { configuration, otherPort in
                configuration.images.allowedHosts = ["127.0.0.1:\(otherPort)"]
            }) { harness in
                let path = harness.path(for: harness.otherImage("/images/5-1.png"))
                let response = try await harness.get([path])[0]
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "image/png")
                #expect(harness.other.counts.count("GET", "/images/5-1.png") == 1)
            }
        }

        @Test func anImageLargerThanTheLimitIsRefusedAndNotCached() async throws {
            try await ImageHarness.with(configure: { configuration, _ in
                configuration.images.maxImageBytes = 100
            }) { harness in
                let path = harness.path(for: harness.originImage("/images/3-1.png"))
                let responses = try await harness.get([path, path])
                for response in responses {
                    #expect(response.status == 502)
                    #expect(try response.json()["detail"] as? String == "The image is larger than 100 bytes.")
                }
                #expect(harness.origin.counts.count("GET", "/images/3-1.png") == 2)
                #expect(harness.images.memory.count == 0)
            }
        }

        @Test func upstream404StaysA404AndWhatIsNotAnImageIs502() async throws {
            try await ImageHarness.with { harness in
                let missing = harness.path(for: harness.originImage("/images/9999-1.png"))
                let json = harness.path(for: harness.originImage("/item/3"))
                let responses = try await harness.get([missing, json])
                let (notFound, notImage) = (responses[0], responses[1])
                #expect(notFound.status == 404)
                #expect(notFound.header("Cache-Status") == "open-market-gateway; fwd=miss")
                #expect(notImage.status == 502)
                #expect(try notImage.json()["detail"] as? String == "The upstream answer is not a JPEG, PNG, GIF or WebP image.")
            }
        }

        @Test func fiftyConcurrentFirstRequestsMakeOneUpstreamFetch() async throws {
            try await ImageHarness.with { harness in
                let port = harness.port
                let path = harness.path(for: harness.originImage("/images/7-1.png"))
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<50 {
                        group.addTask { try await offPool { try RawHTTPClient(port: port).request("GET", path).status } }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 200, count: 50))
                #expect(harness.origin.counts.count("GET", "/images/7-1.png") == 1)
            }
        }

        @Test func theMemoryBudgetHoldsUnderManyDistinctImages() async throws {
            try await ImageHarness.with(configure: { configuration, _ in
                configuration.images.memoryBytes = 8_000
            }) { harness in
                // Thirty small PNGs (21 to 24 have photo-sized JPEGs first).
                let paths = (Array(1...20) + Array(25...34)).map { harness.path(for: harness.originImage("/images/\($0)-1.png")) }
                let statuses = try await harness.get(paths).map(\.status)
                #expect(statuses == Array(repeating: 200, count: 30))
                #expect(harness.images.memory.bytes <= 8_000)
                #expect(harness.images.memory.count >= 1)
                #expect(harness.images.memory.count < 30)
            }
        }
    }
}

extension IntegrationTests.Images {
    /// A server that only redirects: `/r/{n}` to `/r/{n+1}` (forever), `/r/relative` to
    /// `to-origin` (relative), and `/r/{name}` to `targets[name]`.
    final class Redirector: Sendable {
        final class Targets: Sendable {
            let table = Locked<[String: String]>([:])
            subscript(name: String) -> String? { table.withLock { $0[name] } }
        }

        let targets = Targets()
        let server: GatewayServer

        init() throws {
            let configuration = GatewayConfiguration.loopback()
            var router = Router()
            let targets = self.targets
            router.add(.get, "/r/{name}", .immediate { _, context in
                let name = context.parameters["name"]!
                if let count = Int(name) { return GatewayResponse(status: 302, headers: ["Location": "/r/\(count + 1)"]) }
                if name == "relative" { return GatewayResponse(status: 301, headers: ["Location": "to-origin"]) }
                return GatewayResponse(status: 307, headers: ["Location": targets[name] ?? "/nowhere"])
            })
            server = GatewayServer(configuration: configuration, router: router, logger: .quiet("redirector"), metrics: GatewayMetrics(presets: GatewayMetrics.gatewayPresets))
            try server.start()
        }
    }

    @Test func redirectsAreFollowedOnlyToAllowedDestinationsAndAtMostThree() async throws {
        let redirector = try Redirector()
        defer { redirector.server.shutdown() }
        let redirectorPort = redirector.server.port
        try await ImageHarness.with(configure: { configuration, _ in
            // Listed by its literal address, so its loopback address is allowed.
            configuration.images.allowedHosts = ["127.0.0.1:\(redirectorPort)"]
        }) { harness in
            redirector.targets.table.withLock {
                $0 = ["to-origin": harness.originImage("/images/2-1.png"), "to-other": harness.otherImage("/images/2-1.png")]
            }
            let paths = ["to-origin", "relative", "to-other", "0", "1"].map { harness.path(for: "http://127.0.0.1:\(redirectorPort)/r/\($0)") }
            let responses = try await harness.get(paths)
            #expect(responses.map(\.status) == [200, 200, 403, 502, 502])
            #expect(responses[0].header("Content-Type") == "image/png")
            #expect(responses[1].header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
            #expect(try responses[3].json()["detail"] as? String == "The image's redirect could not be followed.")
            #expect(harness.origin.counts.count("GET", "/images/2-1.png") == 2)
            #expect(harness.other.counts.total == 0)
        }
    }
}

extension IntegrationTests.Images {
    @Test func afterARestartTheImageComesFromDiskWithNoUpstreamRequest() async throws {
        try await ImageHarness.with { harness in
            let path = harness.path(for: harness.originImage("/images/6-1.png"))
            let first = try await harness.get([path])[0]
            #expect(first.header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
            try await harness.afterRestart { port, images in
                #expect(images.memory.count == 0)
                // The origin's bytes, the rendered image and the source's placeholder.
                #expect(images.disk?.count == 3)
                let responses = try await ImageHarness.get([path, path], port: port)
                let (again, memory) = (responses[0], responses[1])
                #expect(again.status == 200)
                #expect(again.header("Cache-Status") == "open-market-gateway; hit; detail=disk")
                #expect(again.header("Content-Type") == "image/png")
                #expect(again.header("ETag") == first.header("ETag"))
                #expect(again.body == first.body)
                #expect(memory.header("Cache-Status") == "open-market-gateway; hit; detail=memory")
            }
            #expect(harness.origin.counts.count("GET", "/images/6-1.png") == 1)
        }
    }

    @Test func theDiskBudgetHoldsUnderManyDistinctImages() async throws {
        try await ImageHarness.with(configure: { configuration, _ in
            configuration.images.diskBytes = 60_000
            configuration.images.memoryBytes = 0
        }) { harness in
            // Thirty small PNGs (21 to 24 have photo-sized JPEGs first).
            let paths = (Array(1...20) + Array(25...34)).map { harness.path(for: harness.originImage("/images/\($0)-1.png")) }
            let statuses = try await harness.get(paths).map(\.status)
            #expect(statuses == Array(repeating: 200, count: 30))
            let disk = try #require(harness.images.disk)
            try await harness.settle()
            disk.drain()
            let files = try FileManager.default.contentsOfDirectory(atPath: disk.directory.path)
            let onDisk = try files.reduce(0) { total, name in
                let attributes = try FileManager.default.attributesOfItem(atPath: disk.directory.appendingPathComponent(name).path)
                return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
            }
            #expect(onDisk == disk.bytes)
            #expect(onDisk <= 60_000)
            #expect(files.count == disk.count)
            #expect(files.count >= 1 && files.count < 30)
            #expect(harness.images.memory.count == 0)
        }
    }
}

extension IntegrationTests.Images {
    /// A resolver that does not answer does not hold the request past the resolve timeout,
    /// and nothing is fetched.
    @Test func aSlowResolverAnswers502InTime() async throws {
        let origin = DemoOrigin(logger: .quiet("image-test"))
        let url = try origin.start()
        let client = try TestOriginClient()
        defer {
            client.shutdown()
            origin.shutdown()
        }
        var fetcher = ImageFetcher(
            policy: ImageHostPolicy(origin: try OriginEndpoint(url: url.absoluteString), allowedHosts: []), maxBytes: 1 << 20,
            maxRedirects: 3, resolveTimeout: .milliseconds(200))
        fetcher.resolve = { host in
            Thread.sleep(forTimeInterval: 2)
            return AddressResolver.resolve(host)
        }
        let started = ContinuousClock.now
        let slowFetcher = fetcher
        let outcome = await withCheckedContinuation { continuation in
            client.loop.execute {
                slowFetcher.fetch("http://127.0.0.1:\(url.port!)/images/1-1.png", client: client.client, requestID: "slow") {
                    continuation.resume(returning: $0)
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(error.status == 502)
        #expect(error.detail == "The image's host was not resolved in time.")
        #expect(elapsed < .seconds(1.5))
        #expect(origin.counts.total == 0)
    }
}

extension IntegrationTests.Images {
    /// An image host that fails opens its own breaker: its images are answered 503 at once and
    /// nothing more is sent to it, while the origin's images (another host and port) are
    /// fetched as usual; once it answers a probe it is asked again.
    @Test func aFailingImageHostBacksOffAloneAndComesBack() async throws {
        let origin = DemoOrigin(logger: .quiet("image-test"))
        let originURL = try origin.start()
        let imageHost = DemoOrigin(logger: .quiet("image-host"))
        let hostURL = try imageHost.start()
        let client = try TestOriginClient()
        defer {
            client.shutdown()
            origin.shutdown()
            imageHost.shutdown()
        }
        var settings = BreakerConfiguration()
        settings.failures = 3
        settings.openFor = .milliseconds(400)
        var fetcher = ImageFetcher(
            policy: ImageHostPolicy(origin: try OriginEndpoint(url: originURL.absoluteString), allowedHosts: ["127.0.0.1:\(hostURL.port!)"]),
            maxBytes: 1 << 20, maxRedirects: 3)
        let breakers = HostBreakers(settings: settings)
        fetcher.breakers = breakers
        let fixed = fetcher
        func fetch(_ url: URL) async -> ImageFetchOutcome {
            await withCheckedContinuation { continuation in
                client.loop.execute {
                    fixed.fetch(url.absoluteString + "/images/1-1.png", client: client.client, requestID: "breaker") { continuation.resume(returning: $0) }
                }
            }
        }
        func status(_ outcome: ImageFetchOutcome) -> Int {
            switch outcome {
            case .image: 200
            case .failure(let error): error.status
            }
        }
        imageHost.setFaults(DemoFaults(errorRate: 1))
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(status(await fetch(hostURL))) }
        #expect(statuses == [502, 502, 502, 503, 503])
        #expect(imageHost.counts.total == 3)
        #expect(breakers.state(of: "127.0.0.1:\(hostURL.port!)") == .open)
        // The origin's own images are another host and port: fetched as usual.
        #expect(status(await fetch(originURL)) == 200)
        #expect(breakers.state(of: "127.0.0.1:\(originURL.port!)") == .closed)
        imageHost.setFaults(DemoFaults())
        try await Task.sleep(for: .milliseconds(450))
        #expect(status(await fetch(hostURL)) == 200)
        #expect(breakers.state(of: "127.0.0.1:\(hostURL.port!)") == .closed)
        #expect(imageHost.counts.total == 4)
    }
}
