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
