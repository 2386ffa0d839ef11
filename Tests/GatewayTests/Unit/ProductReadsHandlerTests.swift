@testable import BodyCompression
import Foundation
@testable import Gateway
import GatewayModels
@testable import HTTPInterface
@testable import Observability
@testable import Routing
import TestSupport
import Testing

/// The read handlers (`ProductReads`) driven without a server or sockets: a `QueueLoop`, a
/// `FakeOrigin` answering with the origin samples, and the handlers' own router. Freshness,
/// stale-while-revalidate, stale-if-error, coalescing and the v1 page assembly.
@Suite struct ProductReadsHandlerTests {
    static let item = try! HandlerHarness.fixture("v1-item.json")
    static let page = try! HandlerHarness.fixture("v1-items-page.json")

    /// Origin page `number`: the page sample's items, numbered on from `(number - 1) * 20`.
    static func page(_ number: Int) -> [UInt8] {
        var json = try! JSONSerialization.jsonObject(with: Data(page)) as! [String: Any]
        json["page"] = number
        json["items"] = (json["items"] as! [[String: Any]]).map { item in
            var item = item
            item["id"] = (item["id"] as! Int) + (number - 1) * 20
            return item
        }
        return [UInt8](try! JSONSerialization.data(withJSONObject: json))
    }

    /// The v1 origin, with 127 items as the demo origin has: `/item/{id}` is the item sample;
    /// `/items/{n}` is page n of the sample for n up to 6, its first 7 items for page 7, and
    /// 404 past it.
    static let v1Origin: FakeOrigin.Answer = { request in
        guard request.target.hasPrefix("/items/"), let number = Int(request.target.dropFirst("/items/".count)) else {
            return FakeOrigin.ok(item)
        }
        guard number <= 7 else { return FakeOrigin.status(404) }
        guard number == 7 else { return FakeOrigin.ok(page(number)) }
        var json = try! JSONSerialization.jsonObject(with: Data(page(7))) as! [String: Any]
        json["items"] = Array((json["items"] as! [Any]).prefix(7))
        return FakeOrigin.ok([UInt8](try! JSONSerialization.data(withJSONObject: json)))
    }

    static func ids(_ response: GatewayResponse) throws -> [Int] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (json["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } ?? []
    }

    static func hasNextPage(_ response: GatewayResponse) throws -> Bool? {
        try (JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["hasNextPage"] as? Bool
    }

    /// - Parameter backoff: the reads' ``FetchBackoff``; by default none (each failure kind
    ///   reaches the fake origin), as backoffs are tested on their own.
    static func harness(
        backoff: FetchBackoff<PageCacheKey> = FetchBackoff(first: .zero, maximum: .zero), _ configure: (inout ReadPathConfiguration) -> Void = { _ in }
    ) throws -> HandlerHarness {
        try harnessAndReads(backoff: backoff, configure).harness
    }

    /// ``harness(backoff:_:)`` and the reads it serves, for a test that waits on their state.
    static func harnessAndReads(
        backoff: FetchBackoff<PageCacheKey> = FetchBackoff(first: .zero, maximum: .zero), _ configure: (inout ReadPathConfiguration) -> Void = { _ in }
    ) throws -> (harness: HandlerHarness, reads: ProductReads) {
        var configuration = ReadPathConfiguration()
        configure(&configuration)
        let reads = ProductReads(
            endpoint: try OriginEndpoint(url: "http://origin.test"), generation: .v1, configuration: configuration, compression: ResponseCompression(),
            metrics: GatewayMetrics(presets: GatewayMetrics.gatewayPresets), backoff: backoff)
        var router = Router()
        reads.register(in: &router)
        return (HandlerHarness(router: router, answer: v1Origin), reads)
    }


    @Test func aFreshPageIsAnsweredFromTheCacheWithoutTheOrigin() async throws {
        let harness = try Self.harness()
        let first = await harness.get("/v1/products/1")
        let second = await harness.get("/v1/products/1")
        #expect(first.status == 200)
        #expect(first.headers["Cache-Status"] == "open-market-gateway; fwd=miss; stored")
        #expect(second.status == 200)
        #expect(second.headers["Cache-Status"]?.hasPrefix("open-market-gateway; hit; ttl=") == true)
        #expect(second.body == first.body)
        #expect(harness.origin.targets == ["/item/1"])
    }

    /// Past its TTL and within stale-while-revalidate: the stale page at once, and one
    /// refresh for however many requests come while it runs.
    @Test func aStalePageIsServedWhileOneRefreshRuns() async throws {
        let harness = try Self.harness { $0.detailTimeToLive = .zero; $0.cache.staleWhileRevalidate = .seconds(60) }
        let first = await harness.get("/v1/products/1")
        #expect(first.headers["Cache-Status"] == "open-market-gateway; fwd=miss; stored")
        harness.origin.hold()
        let stale = [await harness.get("/v1/products/1"), await harness.get("/v1/products/1")]
        for response in stale {
            #expect(response.status == 200)
            #expect(response.headers["Cache-Status"] == "open-market-gateway; hit; fwd=stale; detail=revalidating")
            #expect(response.body == first.body)
        }
        await harness.settle()
        #expect(harness.origin.targets == ["/item/1", "/item/1"], "one refresh for both stale answers")
        harness.origin.release()
        await harness.settle()
    }

    /// Past stale-while-revalidate, within stale-if-error: an origin failure is answered
    /// with the expired page and says why; without a page to fall back on it is a 502.
    @Test func anExpiredPageIsServedWhenTheOriginFails() async throws {
        let harness = try Self.harness { $0.detailTimeToLive = .zero; $0.cache.staleWhileRevalidate = .zero; $0.cache.staleIfError = .seconds(3600) }
        let first = await harness.get("/v1/products/1")
        harness.origin.answer { _ in FakeOrigin.status(503) }
        let failedWith503 = await harness.get("/v1/products/1")
        #expect(failedWith503.status == 200)
        #expect(failedWith503.headers["Cache-Status"] == "open-market-gateway; hit; fwd=stale; fwd-status=503")
        #expect(failedWith503.body == first.body)
        harness.origin.answer { _ in .failure(.connectionLost) }
        let unreachable = await harness.get("/v1/products/1")
        #expect(unreachable.headers["Cache-Status"] == "open-market-gateway; hit; fwd=stale; detail=origin-unreachable")
        #expect(unreachable.body == first.body)

        harness.origin.answer { _ in FakeOrigin.status(503) }
        let cold = await harness.get("/v1/products/2")
        #expect(cold.status == 502)
        #expect(cold.headers["Content-Type"] == "application/problem+json")
        #expect(cold.headers["Cache-Status"] == "open-market-gateway; fwd=miss; fwd-status=503")
        #expect(harness.origin.targets == ["/item/1", "/item/1", "/item/1", "/item/2"])
    }

    /// While an expired page's key backs off after a failure, it is served as stale-if-error
    /// with the failure's status, and nothing is sent; a miss gets the failure's problem with
    /// `Retry-After`.
    @Test func aKeyBackingOffIsNotFetched() async throws {
        let harness = try Self.harness(backoff: FetchBackoff(first: .seconds(60), maximum: .seconds(60), jitter: { 1 })) {
            $0.detailTimeToLive = .zero; $0.cache.staleWhileRevalidate = .zero; $0.cache.staleIfError = .seconds(3600)
        }
        let first = await harness.get("/v1/products/1")
        harness.origin.answer { _ in FakeOrigin.status(503) }
        _ = await harness.get("/v1/products/1")
        let failing = ContinuousClock.now
        _ = await harness.get("/v1/products/2")
        harness.origin.answer { _ in .failure(.connectionLost) }
        let held = await harness.get("/v1/products/1")
        #expect(held.status == 200)
        #expect(held.headers["Cache-Status"] == "open-market-gateway; hit; fwd=stale; fwd-status=503")
        #expect(held.body == first.body)
        let cold = await harness.get("/v1/products/2")
        // What is left of the 60 s backoff, rounded up: 60 unless the reads since the failure
        // took a second or more (they did under ASan on a busy machine: 58).
        let passed = Int(((ContinuousClock.now - failing) / .seconds(1)).rounded(.up))
        #expect(cold.status == 502)
        #expect(Int(cold.headers["Retry-After"] ?? "").map { (60 - passed)...60 ~= $0 } == true)
        #expect(cold.headers["Cache-Status"] == "open-market-gateway; fwd=miss; fwd-status=503")
        #expect(harness.origin.targets == ["/item/1", "/item/1", "/item/2"])
    }

    /// After failures, stored pages of the keys that failed are refreshed a few at a time
    /// (``ProductReads/recoveryRefreshes``): the others are served as stored, saying so, and
    /// refreshed by a later read, so a recovering origin does not get every stale key at once.
    /// Reads of a key whose refresh is running take no slot.
    @Test func keysThatFailedAreRefreshedAFewAtATime() async throws {
        let (harness, reads) = try Self.harnessAndReads(backoff: FetchBackoff(first: .milliseconds(1), maximum: .milliseconds(1), jitter: { 1 })) {
            $0.detailTimeToLive = .zero; $0.cache.staleWhileRevalidate = .seconds(60)
        }
        let ids = 1...6
        for id in ids { _ = await harness.get("/v1/products/\(id)") }
        harness.origin.answer { _ in FakeOrigin.status(503) }
        for id in ids { _ = await harness.get("/v1/products/\(id)") }
        await harness.settle()
        #expect(harness.origin.targets.count == 12)
        try await Task.sleep(for: .milliseconds(5))
        // Recovered, but slow: the refreshes wait at the origin.
        harness.origin.answer(with: Self.v1Origin)
        harness.origin.hold()
        var served: [GatewayResponse] = []
        for id in [1, 1, 1] + Array(ids.dropFirst()) { served.append(await harness.get("/v1/products/\(id)")) }
        await harness.settle()
        #expect(served.allSatisfy { $0.status == 200 })
        #expect(served.map { $0.headers["Cache-Status"] } == Array(repeating: CacheStatus.staleWhileRevalidating.value, count: 6)
            + Array(repeating: CacheStatus.refreshDeferred.value, count: 2))
        #expect(served.map(\.cacheOutcome) == Array(repeating: .stale, count: 8))
        #expect(Array(harness.origin.targets.dropFirst(12)) == ["/item/1", "/item/2", "/item/3", "/item/4"])
        harness.origin.release()
        // The four refreshes finish on the mapping workers, then on the loop: a number of
        // loop turns is not enough on a busy machine.
        #expect(try await poll(for: .seconds(10)) { reads.refreshSlots.inUse == 0 })
        await harness.settle()
        // The slots are free again; every stale key refreshes on its next read, the two
        // deferred ones too (each read's refresh let finish before the next read).
        for id in ids {
            _ = await harness.get("/v1/products/\(id)")
            #expect(try await poll(for: .seconds(10)) { reads.refreshSlots.inUse == 0 })
        }
        await harness.settle()
        #expect(Array(harness.origin.targets.dropFirst(16)) == ids.map { "/item/\($0)" })
    }

    /// Requests for one cold page while its fetch runs join it: one origin request, and
    /// every request gets the page.
    @Test func concurrentMissesForOnePageMakeOneOriginRequest() async throws {
        let harness = try Self.harness()
        harness.origin.hold()
        let waiting = (0..<3).map { _ in harness.start(GatewayRequest(method: .get, path: "/v1/products/1")) }
        await harness.settle()
        #expect(harness.origin.targets == ["/item/1"])
        harness.origin.release()
        for capture in waiting {
            let response = await capture.response
            #expect(response.status == 200)
            #expect(response.headers["Cache-Status"] == "open-market-gateway; fwd=miss; stored")
        }
        #expect(harness.origin.targets == ["/item/1"])
    }

    /// A v1 contract page asks its origin page and the read-ahead page at once: both are
    /// sent before either answer arrives, and the page is assembled from both.
    @Test func aV1PageAndItsReadAheadPageAreAskedAtOnce() async throws {
        let harness = try Self.harness()
        harness.origin.hold()
        let capture = harness.start(GatewayRequest(method: .get, path: "/v1/products", query: "page=1"))
        await harness.settle()
        #expect(harness.origin.targets == ["/items/1", "/items/2"], "both asked while neither is answered")
        harness.origin.release()
        let response = await capture.response
        #expect(response.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let ids = (json["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
        #expect(ids == Array(1...20))
        #expect(json["hasNextPage"] as? Bool == true)
        #expect(json["page"] as? Int == 1)
    }

    /// A contract page of five origin pages and its read-ahead page: the first is asked
    /// alone, then (it was full) the other five at once: two origin round trips, not six.
    @Test func aLargeV1PageAsksItsFirstPageThenTheRestAtOnce() async throws {
        let harness = try Self.harness()
        harness.origin.hold()
        let capture = harness.start(GatewayRequest(method: .get, path: "/v1/products", query: "page=1&pageSize=100"))
        await harness.settle()
        #expect(harness.origin.targets == ["/items/1"])
        harness.origin.releaseHeld()
        #expect(try await poll { harness.origin.requests.count == 6 })
        #expect(harness.origin.targets == (1...6).map { "/items/\($0)" }, "the rest asked while none of them is answered")
        harness.origin.release()
        let response = await capture.response
        #expect(response.status == 200)
        #expect(try Self.ids(response) == Array(1...100))
        #expect(try Self.hasNextPage(response) == true)
    }

    /// Nothing is asked past a held page that is not full (the end of the list), and an
    /// origin 404 page is held like an empty one: each origin page is asked once.
    @Test func heldPagesAtTheEndOfTheListAreNotAskedAgain() async throws {
        // Held for 10 minutes here: under a sanitizer, beside tests that make RSA keys, the
        // steps below once took more than the default 10 s, and the pages were asked again.
        let harness = try Self.harness { configuration in
            configuration.listTimeToLive = .seconds(600)
            configuration.v1OriginPageMaxAge = .seconds(600)
        }
        // Page 7 of 20: origin pages 7 (7 items) and 8 (404), both held afterwards.
        let seventh = await harness.get("/v1/products", query: "page=7")
        #expect(try Self.ids(seventh) == Array(121...127))
        #expect(try Self.hasNextPage(seventh) == false)
        #expect(harness.origin.targets == ["/items/7", "/items/8"])
        // Page 3 of 50 needs origin pages 6 to 8: 7 is held and not full, so only 6 is asked.
        let third = await harness.get("/v1/products", query: "page=3&pageSize=50")
        #expect(try Self.ids(third) == Array(101...127))
        #expect(try Self.hasNextPage(third) == false)
        #expect(harness.origin.targets == ["/items/7", "/items/8", "/items/6"])
        // Page 5 of 30 needs origin pages 7 and 8, both held: nothing is asked.
        let fifth = await harness.get("/v1/products", query: "page=5&pageSize=30")
        #expect(try Self.ids(fifth) == Array(121...127))
        #expect(harness.origin.targets == ["/items/7", "/items/8", "/items/6"])
    }
}
