import Foundation
import Testing
@testable import Gateway

@Suite struct SharedPageRecordTests {
    static let now = ContinuousClock.now
    static let wall = Date(timeIntervalSince1970: 1_800_000_000)

    static func page(gzip: [UInt8]?) -> CachedPage {
        CachedPage(
            status: 200, contentType: "application/json", identity: Array(#"{"items":[]}"#.utf8), gzip: gzip, storedAt: now - .seconds(7),
            timeToLive: .seconds(30), fields: [("Vary", "Accept-Encoding, Accept-Language"), ("Content-Language", "ko-KR")])
    }

    /// A record read on another replica 2 s later: same bytes, same ETags, 2 s older.
    @Test(arguments: [nil, [0x1f, 0x8b, 0x08, 0x00]] as [[UInt8]?])
    func roundTripsWithItsAge(_ gzip: [UInt8]?) throws {
        let page = Self.page(gzip: gzip)
        let bytes = SharedPageRecord.encode(page, hasNextPage: true, now: Self.now, wallNow: Self.wall)
        let later = Self.now + .seconds(100)
        let entry = try #require(SharedPageRecord.decode(bytes, now: later, wallNow: Self.wall + 2))
        #expect(entry.hasNextPage)
        #expect(entry.page.identity == page.identity)
        #expect(entry.page.gzip == gzip)
        #expect(entry.page.etag == page.etag)
        #expect(entry.page.heads == page.heads)
        #expect(entry.page.fields == page.fields)
        #expect(entry.page.timeToLive == .seconds(30))
        #expect(later - entry.page.storedAt == .seconds(9))
    }

    /// A clock behind the writer's makes no negative age; anything truncated or of another
    /// layout is no entry.
    @Test func refusesWhatItDidNotWrite() {
        let bytes = SharedPageRecord.encode(Self.page(gzip: nil), hasNextPage: false, now: Self.now, wallNow: Self.wall)
        #expect(SharedPageRecord.decode(bytes, now: Self.now, wallNow: Self.wall - 60).map { Self.now - $0.page.storedAt } == .zero)
        for cut in [0, 3, 4, 20, bytes.count - 1] {
            #expect(SharedPageRecord.decode(Array(bytes.prefix(cut))) == nil)
        }
        #expect(SharedPageRecord.decode(bytes + [0]) == nil)
        #expect(SharedPageRecord.decode(Array("OMP2".utf8) + bytes.dropFirst(4)) == nil)
    }
}
