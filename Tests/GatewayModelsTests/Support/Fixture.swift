import Foundation

/// The upstream samples copied into `Fixtures/` (see `Fixtures/SOURCES.md`).
enum Fixture: String, CaseIterable {
    case v1ItemsPage = "v1-items-page"
    case v1Item = "v1-item"
    case v1Error = "v1-error"
    case v2ProductsPage = "v2-products-page"
    case v2Product = "v2-product"
    case v2bProductsPage = "v2b-products-page"
    case v2bProduct = "v2b-product"

    var bytes: [UInt8] {
        guard let url = Bundle.module.url(forResource: rawValue, withExtension: "json", subdirectory: "Fixtures"),
              let data = FileManager.default.contents(atPath: url.path) else {
            fatalError("missing fixture \(rawValue).json")
        }
        return [UInt8](data)
    }
}

/// The repository root, for files outside the test target (openapi.yaml).
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A small deterministic generator (SplitMix64) for property-style tests: same seed, same cases.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
