// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "OpenMarketGateway",
    products: [
        .executable(name: "gateway", targets: ["GatewayCLI"]),
        .executable(name: "demo-origin", targets: ["DemoOriginCLI"]),
        .library(name: "Gateway", targets: ["Gateway"]),
        .library(name: "GatewayModels", targets: ["GatewayModels"]),
        .library(name: "DemoOrigin", targets: ["DemoOrigin"]),
        .library(name: "HTTPCodec", targets: ["HTTPCodec"]),
        // Reads a corpus of request streams, writes the codec's verdicts (scripts/differential).
        .executable(name: "http1-probe", targets: ["HTTP1Probe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // HMAC-SHA256 for signed image URLs (Crypto on Linux, CryptoKit's API).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Test-only: load openapi.yaml and validate it as OpenAPI 3.1 (GatewayModelsTests).
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
    ],
    targets: [
        // Debian's C libraries, one system module each (Sources/C*/module.modulemap); every shim
        // includes <sys/types.h> first (see Sources/CLibevent/shim.h).
        .systemLibrary(name: "CLibevent", pkgConfig: "libevent", providers: [.apt(["libevent-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        // The sans-I/O HTTP/1.1 codec: bytes to request heads and bodies, response heads to
        // bytes. No Foundation, no libevent, no I/O.
        .target(name: "HTTPCodec"),
        // Pure contract and mapping code: Foundation and the codec's list syntax only, no C,
        // no I/O.
        .target(name: "GatewayModels", dependencies: ["HTTPCodec"]),
        // libvips from Debian; see Sources/CVips/module.modulemap.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // Image rendering with libvips: decode, orient, resize, strip, encode. Synchronous, no
        // I/O; the only target that imports CVips.
        .target(name: "ImageProcessing", dependencies: ["CVips"]),
        // What the transport, the app and every protocol share: requests, responses, problems,
        // header lists, request ids, origin requests and answers, Redis replies, and the
        // protocols through which handlers reach their loop, the origin and Redis. No C.
        .target(name: "HTTPInterface", dependencies: ["HTTPCodec", "GatewayModels"]),
        // Metrics (the Prometheus registry, per-loop request handles) and logs (the batched
        // log writer, access lines): what the transport and the app both report through.
        .target(
            name: "Observability",
            dependencies: [
                "HTTPInterface",
                "HTTPCodec",
                "GatewayModels",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // gzip and gunzip of whole bodies over zlib; the only target that imports CZlib.
        .target(name: "BodyCompression", dependencies: ["CZlib", "GatewayModels"]),
        // The server library. Only Sources/Gateway/Transport imports CLibevent, COpenSSL and
        // CHiredis.
        .target(
            name: "Gateway",
            dependencies: [
                "CLibevent",
                "COpenSSL",
                "CHiredis",
                "BodyCompression",
                "HTTPInterface",
                "Observability",
                "GatewayModels",
                "HTTPCodec",
                "ImageProcessing",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // A stand-in for the origin (v1, v2 and v2b) on the gateway's transport: tests, benchmarks, and the
        // gateway's default run without --origin.
        .target(
            name: "DemoOrigin",
            dependencies: [
                "Gateway",
                "HTTPInterface",
                "GatewayModels",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `demo-origin` executable.
        .executableTarget(
            name: "DemoOriginCLI",
            dependencies: [
                "DemoOrigin",
                "Gateway",
                "Observability",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `gateway` executable: flags and environment into a configuration, then run.
        .executableTarget(
            name: "GatewayCLI",
            dependencies: [
                "Gateway",
                "GatewayModels",
                "Observability",
                "DemoOrigin",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "GatewayModelsTests",
            dependencies: [
                "GatewayModels",
                "TestSupport",
                .product(name: "Yams", package: "Yams"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ],
            resources: [.copy("Fixtures")]
        ),
        // `swift run -c release ModelsBenchmark`: decode + map + format + encode of the v1 sample page.
        .executableTarget(
            name: "ModelsBenchmark",
            dependencies: ["GatewayModels"],
            path: "Benchmarks/ModelsBenchmark"
        ),
        // Helpers shared by the test targets (seeded test data).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Real photos for the image tests: pixels encoded by libvips, metadata spliced in.
        .target(name: "TestPhotos", dependencies: ["CVips", "ImageProcessing"], path: "Tests/TestPhotos"),
        .testTarget(
            name: "GatewayTests",
            dependencies: ["Gateway", "GatewayCLI", "GatewayModels", "HTTPInterface", "Observability", "BodyCompression", "CHiredis", "DemoOrigin", "ImageProcessing", "TestSupport", "TestPhotos"]),
        // Tests/HTTP1Fuzz is the codec's libFuzzer target: scripts/fuzz compiles it with swiftc.
        .testTarget(name: "HTTPCodecTests", dependencies: ["HTTPCodec"]),
        .testTarget(name: "ImageProcessingTests", dependencies: ["ImageProcessing", "TestPhotos"]),
        .executableTarget(name: "HTTP1Probe", dependencies: ["HTTPCodec"], path: "Tests/HTTP1Probe"),
        .testTarget(name: "DemoOriginTests", dependencies: ["DemoOrigin", "DemoOriginCLI", "Gateway", "GatewayModels", "HTTPInterface", "BodyCompression", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
