// swift-tools-version: 6.2
// OpenMarketClient: the Open Market Gateway's contract (the repository's openapi.yaml) as a
// Swift client, generated at build time by swift-openapi-generator's build plugin, on the
// URLSession transport (FoundationNetworking on Linux). A package of its own, so the gateway's
// build does not carry the generator. See README.md.
import PackageDescription

let package = Package(
    name: "OpenMarketClient",
    // What swift-openapi-runtime and swift-openapi-urlsession need.
    platforms: [.macOS(.v10_15), .iOS(.v13)],
    products: [
        .library(name: "OpenMarketClient", targets: ["OpenMarketClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "OpenMarketClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // The client generated from openapi.yaml as it was before include=placeholders (a frozen
        // copy): the tests show the gateway's answers still decode in what apps shipped then.
        .target(
            name: "OpenMarketClientBeforePlaceholders",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .testTarget(
            name: "OpenMarketClientTests",
            dependencies: [
                "OpenMarketClient", "OpenMarketClientBeforePlaceholders",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
