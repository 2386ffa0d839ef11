import GatewayModels

/// What reading one v1 origin page gave: the page (an origin 404 is an empty page), or why
/// it could not be read.
typealias V1PageOutcome = Result<V1OriginPages.Entry, ProductReads.FetchFailure>

extension ProductReads {
    /// Joins the outcomes of consecutive v1 origin pages, fetched in waves rather than one
    /// after another, into what one contract page needs, exactly as reading them in order and
    /// stopping early would:
    /// pages are taken in order up to and including the first that is not full (the end of
    /// the list; later outcomes are ignored, failed or not); a page that failed before that
    /// fails the whole, unless it is the last, read only for the item after the contract
    /// page (`readAheadOnly`), and some page came before it: then the contract page has all
    /// its items and `readAheadFailed` says `hasNextPage` is a guess. The result is as old
    /// as its oldest page. Pure.
    ///
    /// - Precondition: `outcomes` is not empty.
    static func assembleV1Pages(_ outcomes: [V1PageOutcome], readAheadOnly: Bool) -> Result<V1Fetch, FetchFailure> {
        precondition(!outcomes.isEmpty, "a contract page spans at least one origin page")
        var fetched = V1Fetch(pages: [], oldest: .now, readAheadFailed: false)
        for (index, outcome) in outcomes.enumerated() {
            switch outcome {
            case .success(let entry):
                fetched.pages.append(entry.page)
                fetched.oldest = min(fetched.oldest, entry.storedAt)
                if entry.page.items.count < OriginGeneration.v1PageSize { return .success(fetched) }
            case .failure(let failure):
                guard index == outcomes.count - 1, readAheadOnly, !fetched.pages.isEmpty else { return .failure(failure) }
                fetched.readAheadFailed = true
                return .success(fetched)
            }
        }
        return .success(fetched)
    }
}
