import Foundation
import GatewaySupport

/// A valid discount: the sale price is below the list price and not negative.
///
/// Built only through ``init(price:salePrice:)``, which returns `nil` for anything that is not
/// a discount (no sale price, a sale price at or above the price, a negative one, a price that
/// is not positive). The contract then shows all discount fields as `null`.
public struct Discount: Sendable, Hashable {
    /// The list price.
    public let price: Decimal
    /// What the buyer pays.
    public let salePrice: Decimal

    /// The discount, or `nil` when `salePrice` is not a discount of `price`.
    public init?(price: Decimal, salePrice: Decimal?) {
        guard let salePrice, price > 0, salePrice >= 0, salePrice < price else { return nil }
        self.price = price
        self.salePrice = salePrice
    }

    /// floor(100 × (price − salePrice) / price): the whole percent, never overstated.
    ///
    /// Computed in `Decimal` and then checked with exact products
    /// (`rate × price ≤ 100 × saving < (rate + 1) × price`), so a division rounded in the 38th
    /// digit cannot push a rate up to the next percent. Always in `0...100`, and in at most
    /// 101 steps whatever the prices: a price so large that `101 × price` is past `Decimal`'s
    /// range (about 3.4e163) gives NaN products, which compare as true, and once looped for
    /// ever on an origin page that carried one (found by the `v2-page` fuzz target). Those
    /// prices take `100 − ceil(100 × salePrice / price)`, whose quotient cannot overflow.
    public var ratePercent: Int {
        let saving = (price - salePrice) * 100
        guard !saving.isNaN, !(price * 101).isNaN else {
            // A positive sale price refuses at least 1% even when the quotient underflows to 0.
            let quotient = -DecimalText.floor(-(salePrice / price * 100))
            let refused = salePrice > 0 ? max(quotient, 1) : 0
            return Int((100 - refused).description) ?? 0
        }
        var rate = min(max(DecimalText.floor(saving / price), 0), 100)
        while rate > 0, rate * price > saving { rate -= 1 }
        while rate < 100, (rate + 1) * price <= saving { rate += 1 }
        return Int(rate.description) ?? 0
    }

    /// The contract's `display.discountRate`: ``ratePercent`` followed by `%`, e.g. `90%`.
    public var rateText: String {
        "\(ratePercent)%"
    }
}
