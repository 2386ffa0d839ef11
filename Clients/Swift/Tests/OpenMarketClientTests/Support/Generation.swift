import OpenMarketClient
import Testing

/// The origin generations the gateway maps, as `--origin-generation` names them, with what the
/// demo origin holds in each.
enum Generation: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case v1, v2, v2b

    var testDescription: String { rawValue }

    /// What a write sends as `password`: on v1 the product's own, chosen at create; on v2/v2b
    /// the vendor's secret (the gateway holds the identifier: the demo origin's first vendor).
    var password: String { self == .v1 ? "pw-client-1" : "demo-secret-1" }

    /// The ids of the list's first two products, newest first.
    var firstIDs: [Int64] { self == .v1 ? [1, 2] : [127, 126] }

    /// Product 3's vendor, as the detail shows it.
    var productThreeVendor: Components.Schemas.Vendor? {
        self == .v1 ? nil : .init(id: 1, name: "Demo Market")
    }
}
