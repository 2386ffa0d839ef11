import Foundation
import GatewayModels
import GatewaySupport

/// The product fields of a v2/v2b write, read and checked: the `params` JSON part of a
/// `POST /api/products`, or the JSON body of a `PATCH /api/products/{id}`. Absent (or
/// `null`) members are nil.
///
/// Members: `name`, the description (`descriptions` on v2, `description` on v2b),
/// `price`, `currency`, `discounted_price` (the discount *amount*), `stock`, `secret`.
/// Others (`thumbnail_id`, `product_id`) are ignored. Rejects, with 400: a body that is not
/// a JSON object; the other generation's description key (even beside the right one, so a
/// gateway that sends the wrong one is caught); a string member that is not a non-empty
/// string; a negative or non-numeric `price` or `discounted_price`; a `stock` that is not a
/// non-negative integer; a currency that is not three capital letters; no `secret`.
struct V2ProductParams: Sendable, Equatable {
    var name: String?
    var description: String?
    var price: Decimal?
    var currency: String?
    /// v2/v2b `discounted_price`: how much is taken off the price.
    var discountAmount: Decimal?
    var stock: Int64?
    var secret: String

    /// The description key of `generation`'s requests: `descriptions` (v2) or `description` (v2b).
    static func descriptionKey(_ generation: OriginGeneration) -> String {
        generation == .v2b ? "description" : "descriptions"
    }

    /// Reads a JSON object.
    /// - Throws: ``V2Failure`` 400 naming the first problem.
    init(json bytes: [UInt8], generation: OriginGeneration) throws(V2Failure) {
        guard case .object(let members)? = JSONValue.parse(bytes) else { throw .badRequest("params must be a JSON object") }
        let key = Self.descriptionKey(generation)
        let wrongKey = generation == .v2b ? "descriptions" : "description"
        if members[wrongKey] != nil { throw .badRequest("unknown field \(wrongKey): this API takes \(key)") }
        func text(_ name: String) throws(V2Failure) -> String? {
            switch members[name] {
            case nil, .null?: return nil
            case .string(let value)? where !value.isEmpty: return value
            default: throw .badRequest("\(name) must be a non-empty string")
            }
        }
        func amount(_ name: String) throws(V2Failure) -> Decimal? {
            switch members[name] {
            case nil, .null?: return nil
            case .number(let value)? where value >= 0: return value
            default: throw .badRequest("\(name) must be a non-negative number")
            }
        }
        name = try text("name")
        description = try text(key)
        currency = try text("currency")
        if let currency, !(currency.utf8.count == 3 && currency.utf8.allSatisfy({ (65...90).contains($0) })) {
            throw .badRequest("currency must be a three-letter code such as KRW")
        }
        price = try amount("price")
        discountAmount = try amount("discounted_price")
        switch members["stock"] {
        case nil, .null?: stock = nil
        case .number(let value)?:
            guard let whole = DecimalText.int64(value), whole >= 0 else { throw .badRequest("stock must be a non-negative integer") }
            stock = whole
        default: throw .badRequest("stock must be a non-negative integer")
        }
        guard let secret = try text("secret") else { throw .badRequest("secret is required") }
        self.secret = secret
    }

    /// Checks that a create has every member the server required (`stock` defaults to 0,
    /// `discounted_price` to none) and a discount no larger than the price.
    /// - Throws: ``V2Failure`` 400 naming the first missing member.
    func requireComplete(generation: OriginGeneration) throws(V2Failure) {
        let missing: [(String, Bool)] = [
            ("name", name == nil), (Self.descriptionKey(generation), description == nil), ("price", price == nil),
            ("currency", currency == nil),
        ]
        if let (member, _) = missing.first(where: { $0.1 }) { throw .badRequest("\(member) is required") }
        if let price, let discountAmount, discountAmount > price { throw .discountAbovePrice }
    }
}
