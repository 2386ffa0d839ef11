import BodyCompression
import Dispatch
import GatewayModels
import HTTPInterface
import Observability
import Routing
import GatewaySupport

/// Contract list pages assembled from a v1 origin's pages of 20.
extension ProductReads {
    /// Fetches v1 origin pages `pages` and joins them as ``assembleV1Pages(_:readAheadOnly:)``
    /// says. Two pages (a contract page of the usual size and its read-ahead page) are asked
    /// at once: one origin round trip, not two. Of more, the first is asked alone and, when it
    /// came back full, all the rest at once. Pages ``V1OriginPages`` holds are taken from it,
    /// and none is asked past one it holds that is not full, so past the end of the list no
    /// page is asked that a reader in order would not ask. A v1 origin 404 on a list page
    /// counts as an empty page, and is held like one. Called on the loop that owns `origin`;
    /// decoding runs off the loop, and each outcome is delivered on that loop again, where
    /// `completion` runs once.
    func fetchV1Pages(
        _ pages: ClosedRange<Int>, readAheadOnly: Bool, origin: any OriginSending, request: GatewayRequest, context: RouteContext,
        pagesGeneration: Int, completion: @escaping @Sendable (Result<V1Fetch, FetchFailure>) -> Void
    ) {
        let now = ContinuousClock.now
        var held: [Int: V1OriginPages.Entry] = [:]
        var last = pages.upperBound
        for number in pages {
            guard let entry = v1Pages.lookup(number, now: now) else { continue }
            held[number] = entry
            if entry.page.items.count < OriginGeneration.v1PageSize {
                last = number
                break
            }
        }
        // A held page that is not full ends the list: the read-ahead page is then not needed.
        let wave = V1Wave(
            needed: pages.lowerBound...last, held: held, readAheadOnly: readAheadOnly && last == pages.upperBound, origin: origin,
            request: request, context: context, pagesGeneration: pagesGeneration, completion: completion)
        fetchV1Wave(wave, collected: [])
    }

    /// What the waves of one v1 contract page share.
    struct V1Wave: Sendable {
        /// The origin pages the contract page needs, in order.
        var needed: ClosedRange<Int>
        var held: [Int: V1OriginPages.Entry]
        /// Whether the last needed page is read only for the item after the contract page.
        var readAheadOnly: Bool
        var origin: any OriginSending
        var request: GatewayRequest
        var context: RouteContext
        /// The v1 page store's generation when the fetch began.
        var pagesGeneration: Int
        var completion: @Sendable (Result<V1Fetch, FetchFailure>) -> Void
    }

    /// Asks the next wave of `wave.needed` after the `collected` outcomes (both of two pages;
    /// of more, the first, then all the rest), and once every answer of it is in, either
    /// finishes or asks the next. On the origin's loop.
    func fetchV1Wave(_ wave: V1Wave, collected: [V1PageOutcome]) {
        let first = wave.needed.lowerBound + collected.count
        let last = collected.isEmpty && wave.needed.count > 2 ? first : wave.needed.upperBound
        let pages = first...last
        let outcomes = Locked<[V1PageOutcome?]>(Array(repeating: nil, count: pages.count))
        let deliver: @Sendable (Int, V1PageOutcome) -> Void = { [self] index, outcome in
            let all: [V1PageOutcome]? = outcomes.withLock { outcomes in
                outcomes[index] = outcome
                let done = outcomes.compactMap { $0 }
                return done.count == outcomes.count ? done : nil
            }
            guard let all else { return }
            let joined = collected + all
            // A page that failed or is not full ends the reading, as it would in order.
            let ended = all.contains { outcome in
                guard case .success(let entry) = outcome else { return true }
                return entry.page.items.count < OriginGeneration.v1PageSize
            }
            if ended || last == wave.needed.upperBound {
                // The read-ahead exception holds only when the last outcome is that page's.
                wave.completion(Self.assembleV1Pages(joined, readAheadOnly: wave.readAheadOnly && last == wave.needed.upperBound))
            } else {
                fetchV1Wave(wave, collected: joined)
            }
        }
        for (index, number) in pages.enumerated() {
            if let entry = wave.held[number] {
                deliver(index, .success(entry))
                continue
            }
            fetchV1Page(number, wave: wave) { outcome in deliver(index, outcome) }
        }
    }

    /// One v1 origin page: asked, decoded off the loop, stored, and `deliver`ed on the loop.
    func fetchV1Page(_ number: Int, wave: V1Wave, deliver: @escaping @Sendable (V1PageOutcome) -> Void) {
        let origin = wave.origin
        let originRequest = OriginRequest(
            method: .get, target: OriginGeneration.v1ListTarget(page: number), requestID: wave.request.requestID, trace: wave.request.trace)
        let sentAt = ContinuousClock.now
        send(originRequest, via: origin) { [self] result in
            switch result {
            case .success(let response) where response.status == 200:
                DispatchQueue.global().async { [self] in
                    do throws(OriginResponseError) {
                        let entry = V1OriginPages.Entry(page: try OriginGeneration.v1Page(bytes: response.body), storedAt: sentAt)
                        v1Pages.store(entry, number: number, ifGeneration: wave.pagesGeneration)
                        origin.loop.execute { deliver(.success(entry)) }
                    } catch {
                        wave.context.logger.warning("origin response not readable", metadata: ["reason": "\(error.reason)"])
                        let failure = FetchFailure(error: .badGateway("The origin's response could not be read."), originStatus: 200)
                        origin.loop.execute { deliver(.failure(failure)) }
                    }
                }
            case .success(let response) where response.status == 404:
                // Past the end: held like any page, so the next contract page's read (often a
                // prefetch that follows at once) does not ask again.
                let entry = V1OriginPages.Entry(page: V1ItemsPage(page: number, items: []), storedAt: sentAt)
                v1Pages.store(entry, number: number, ifGeneration: wave.pagesGeneration)
                deliver(.success(entry))
            case .success(let response):
                deliver(.failure(Self.failure(originStatus: response.status)))
            case .failure(let failure):
                deliver(.failure(FetchFailure(error: failure.gatewayError, originStatus: nil)))
            }
        }
    }
}
