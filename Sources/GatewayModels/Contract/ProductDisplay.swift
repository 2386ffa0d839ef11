import GatewaySupport

/// The ready-to-render strings of a product, in the request's locale.
public struct ProductDisplay: Sendable, Hashable {
    /// The list price, e.g. `KRW 1,290,000` or `USD 1,690.00`.
    public var price: String
    /// The sale price in the same style, or `nil` when there is no discount.
    public var discountedPrice: String?
    /// The whole-percent discount such as `90%` (floored, never overstated), or `nil`.
    public var discountRate: String?
    /// `잔여수량: 12` / `품절` (ko), `12 in stock` / `Sold out` (en).
    public var stock: String

    public init(price: String, discountedPrice: String?, discountRate: String?, stock: String) {
        self.price = price
        self.discountedPrice = discountedPrice
        self.discountRate = discountRate
        self.stock = stock
    }

    /// Writes `{"price","discountedPrice","discountRate","stock"}` in that order.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("price"); writer.string(price)
        writer.key("discountedPrice"); writer.string(discountedPrice)
        writer.key("discountRate"); writer.string(discountRate)
        writer.key("stock"); writer.string(stock)
        writer.endObject()
    }
}
