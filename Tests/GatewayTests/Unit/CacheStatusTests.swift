@testable import Gateway
import HTTPInterface
import Testing

/// Each `Cache-Status` value and the access line's `cache` outcome made with it: the outcome
/// is what the field says, so the transport never reads the field back.
@Suite struct CacheStatusTests {
    @Test func everyValueCarriesTheOutcomeItSays() {
        let cases: [(CacheStatusField, String, CacheOutcome)] = [
            (CacheStatus.hit(ttl: 30), "open-market-gateway; hit; ttl=30", .hit),
            (CacheStatus.hit(detail: "memory"), "open-market-gateway; hit; detail=memory", .hit),
            (CacheStatus.hit(detail: "disk"), "open-market-gateway; hit; detail=disk", .hit),
            (CacheStatus.staleWhileRevalidating, "open-market-gateway; hit; fwd=stale; detail=revalidating", .stale),
            (CacheStatus.staleIfError(status: 503), "open-market-gateway; hit; fwd=stale; fwd-status=503", .stale),
            (CacheStatus.staleIfError(status: nil), "open-market-gateway; hit; fwd=stale; detail=origin-unreachable", .stale),
            (CacheStatus.refreshDeferred, "open-market-gateway; hit; fwd=stale; detail=refresh-deferred", .stale),
            (
                CacheStatus.sharedHit(ttl: 12, fwd: "miss"),
                "open-market-gateway-shared; hit; ttl=12, open-market-gateway; fwd=miss; stored", .sharedHit
            ),
            (
                CacheStatus.storedInBoth(fwd: "stale"),
                "open-market-gateway-shared; fwd=miss; stored, open-market-gateway; fwd=stale; stored", .miss
            ),
            (CacheStatus.stored(fwd: "miss"), "open-market-gateway; fwd=miss; stored", .miss),
            (CacheStatus.notStored(fwd: "miss", status: 500), "open-market-gateway; fwd=miss; fwd-status=500", .miss),
            (CacheStatus.notStored(fwd: "stale", status: nil), "open-market-gateway; fwd=stale", .miss),
        ]
        for (field, value, outcome) in cases {
            #expect(field.value == value)
            #expect(field.outcome == outcome, "\(value)")
        }
        #expect(CacheOutcome.sharedHit.rawValue == "shared_hit")
    }

    @Test func anErrorKeepsItsOutcomeIntoItsResponse() {
        let error = GatewayError.badGateway("The origin failed.").adding(cacheStatus: CacheStatus.notStored(fwd: "miss", status: 500))
            .adding(header: "Vary", "Accept")
        let response = error.response(requestID: "r-1")
        #expect(response.cacheOutcome == .miss)
        #expect(response.headers["Cache-Status"] == "open-market-gateway; fwd=miss; fwd-status=500")
        #expect(GatewayError.notFound().response(requestID: "r-2").cacheOutcome == nil)
    }
}
