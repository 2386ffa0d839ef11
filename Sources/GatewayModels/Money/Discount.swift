import Foundation

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
    /// digit cannot push a rate up to the next percent. Always in `0...100`.
    public var ratePercent: Int {
        let saving = (price - salePrice) * 100
        var rate = DecimalText.floor(saving / price)
        while rate > 0, rate * price > saving { rate -= 1 }
        while (rate + 1) * price <= saving { rate += 1 }
        return Int(rate.description) ?? 0
    }

    /// The contract's `display.discountRate`: ``ratePercent`` followed by `%`, e.g. `90%`.
    public var rateText: String {
        "\(ratePercent)%"
    }
}
