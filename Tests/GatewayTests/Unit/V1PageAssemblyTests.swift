import GatewayModels
import Testing
@testable import Gateway

/// `ProductReads.assembleV1Pages`: v1 origin pages fetched at once, joined as reading them in
/// order would join them. Pure: no sockets, no origin.
@Suite struct V1PageAssemblyTests {
    /// Origin page `number` holding `count` items (ids from the page's first index), read
    /// `secondsAgo` before `now`.
    static func entry(_ number: Int, items count: Int, secondsAgo: Int64 = 0, now: ContinuousClock.Instant) throws -> V1OriginPages.Entry {
        let first = (number - 1) * OriginGeneration.v1PageSize
        let items = (0..<count).map { index in
            #"{"id":\#(first + index + 1),"title":"item \#(first + index + 1)","price":10,"currency":"USD","stock":1,"registration_date":1700000000}"#
        }
        let page = try OriginGeneration.v1Page(bytes: Array(#"{"page":\#(number),"items":[\#(items.joined(separator: ","))]}"#.utf8))
        return V1OriginPages.Entry(page: page, storedAt: now - .seconds(secondsAgo))
    }

    static let failure = ProductReads.FetchFailure(error: .badGateway("The origin answered 503."), originStatus: 503)

    static func ids(_ fetched: ProductReads.V1Fetch) -> [Int64] {
        fetched.pages.flatMap { $0.items.map(\.id) }
    }

    @Test func fullPagesAreJoinedInOrderAndAsOldAsTheOldest() throws {
        let now = ContinuousClock.now
        let outcomes: [V1PageOutcome] = [
            .success(try Self.entry(1, items: 20, secondsAgo: 3, now: now)),
            .success(try Self.entry(2, items: 20, secondsAgo: 7, now: now)),
        ]
        let fetched = try ProductReads.assembleV1Pages(outcomes, readAheadOnly: true).get()
        #expect(Self.ids(fetched) == Array(1...40))
        #expect(fetched.pages.map(\.page) == [1, 2])
        #expect(fetched.oldest == now - .seconds(7))
        #expect(fetched.readAheadFailed == false)
    }

    /// The first page that is not full ends the list: what follows it is ignored, even a
    /// failure, as a reader in order would never have asked for it.
    @Test func theFirstShortPageEndsTheListAndLaterOutcomesAreIgnored() throws {
        let now = ContinuousClock.now
        let outcomes: [V1PageOutcome] = [
            .success(try Self.entry(7, items: 7, now: now)),
            .failure(Self.failure),
        ]
        let fetched = try ProductReads.assembleV1Pages(outcomes, readAheadOnly: true).get()
        #expect(Self.ids(fetched) == Array(121...127))
        #expect(fetched.pages.count == 1)
        #expect(fetched.readAheadFailed == false)
        let empty = try ProductReads.assembleV1Pages([.success(try Self.entry(9, items: 0, now: now))], readAheadOnly: false).get()
        #expect(empty.pages.count == 1)
        #expect(Self.ids(empty) == [])
    }

    /// A failed read-ahead page still gives the contract page its items; `hasNextPage` is
    /// then a guess (`readAheadFailed`).
    @Test func aFailedReadAheadPageLeavesTheItemsAndSaysSo() throws {
        let now = ContinuousClock.now
        let outcomes: [V1PageOutcome] = [.success(try Self.entry(1, items: 20, now: now)), .failure(Self.failure)]
        let fetched = try ProductReads.assembleV1Pages(outcomes, readAheadOnly: true).get()
        #expect(Self.ids(fetched) == Array(1...20))
        #expect(fetched.readAheadFailed == true)
    }

    /// A failure of a page that holds the contract page's items fails the whole: the first
    /// page, a middle one, or the last one when it is not read only for the item after.
    @Test func aFailedPageWithItemsFailsTheWhole() throws {
        let now = ContinuousClock.now
        let full = try Self.entry(1, items: 20, now: now)
        let cases: [([V1PageOutcome], Bool)] = [
            ([.failure(Self.failure), .success(full)], true),
            ([.failure(Self.failure)], true),
            ([.success(full), .failure(Self.failure), .success(try Self.entry(3, items: 20, now: now))], true),
            ([.success(full), .failure(Self.failure)], false),
        ]
        for (outcomes, readAheadOnly) in cases {
            switch ProductReads.assembleV1Pages(outcomes, readAheadOnly: readAheadOnly) {
            case .success(let fetched): Issue.record("expected a failure, got pages \(fetched.pages.map(\.page))")
            case .failure(let failure):
                #expect(failure.originStatus == 503)
                #expect(failure.error.status == 502)
            }
        }
    }
}
