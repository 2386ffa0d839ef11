import Foundation
import GatewaySupport

/// What an operator purges with `POST /admin/purge`, read from its JSON body:
/// `{"products": [ids]}`, `{"pages": "all"}` or `{"all": true}`, exactly one member.
public enum PurgeScope: Equatable, Sendable {
    /// These products' details and every list page.
    case products([Int64])
    /// Every list page and every detail.
    case pages
    /// Every page and every image, in every tier.
    case all

    /// Most product ids one purge takes.
    public static let maxProducts = 1000

    /// Every field error of a purge body at once.
    public struct Invalid: Error, Equatable {
        public let errors: [FieldError]
    }

    /// The scope `body` asks for, or every field error at once.
    public static func decode(_ body: [UInt8]) -> Result<PurgeScope, Invalid> {
        guard case .object(let members)? = JSONValue.parse(body) else {
            return .failure(Invalid(errors: [FieldError(field: "", message: "must be a JSON object.")]))
        }
        var errors: [FieldError] = []
        var scopes: [PurgeScope] = []
        for name in members.keys.sorted() {
            let value = members[name]!
            switch name {
            case "products":
                guard case .array(let items) = value, (1...maxProducts).contains(items.count) else {
                    errors.append(FieldError(field: "products", message: "must be an array of 1 to \(maxProducts) product ids."))
                    continue
                }
                var ids: [Int64] = []
                for (index, item) in items.enumerated() {
                    guard case .number(let number) = item, let id = Self.productID(number) else {
                        errors.append(FieldError(field: "products[\(index)]", message: "must be a positive whole number."))
                        continue
                    }
                    if !ids.contains(id) { ids.append(id) }
                }
                scopes.append(.products(ids))
            case "pages":
                if value == .string("all") {
                    scopes.append(.pages)
                } else {
                    errors.append(FieldError(field: "pages", message: "must be \"all\"."))
                }
            case "all":
                if value == .bool(true) {
                    scopes.append(.all)
                } else {
                    errors.append(FieldError(field: "all", message: "must be true."))
                }
            default:
                errors.append(FieldError(field: name, message: "is not a purge option (products, pages, all)."))
            }
        }
        if errors.isEmpty && scopes.count != 1 {
            errors.append(FieldError(field: "", message: "must have exactly one of products, pages and all."))
        }
        guard errors.isEmpty, let scope = scopes.first else { return .failure(Invalid(errors: errors)) }
        return .success(scope)
    }

    private static func productID(_ number: Decimal) -> Int64? {
        guard number >= 1, number <= Decimal(Int64.max), number == number.rounded(0, .down) else { return nil }
        return NSDecimalNumber(decimal: number).int64Value
    }
}

extension Decimal {
    fileprivate func rounded(_ scale: Int, _ mode: NSDecimalNumber.RoundingMode) -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, scale, mode)
        return result
    }
}
