// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "OpenMarketGateway",
    products: [
        .executable(name: "gateway", targets: ["GatewayCLI"]),
        .executable(name: "demo-origin", targets: ["DemoOriginCLI"]),
        .library(name: "Gateway", targets: ["Gateway", "GatewayRuntime"]),
        .library(name: "GatewayModels", targets: ["GatewayModels"]),
        .library(name: "DemoOrigin", targets: ["DemoOrigin"]),
        .library(name: "HTTPCodec", targets: ["HTTPCodec"]),
        // Reads a corpus of request streams, writes the codec's verdicts (scripts/differential).
        .executable(name: "http1-probe", targets: ["HTTP1Probe"]),
        .executable(name: "thumbhash-probe", targets: ["ThumbHashProbe"]),
        .executable(name: "jwt-probe", targets: ["JWTProbe"]),
        // The HTTP/2 glue's libFuzzer target (scripts/fuzz http2-glue); built plainly, it
        // replays inputs.
        .executable(name: "http2-glue-fuzz", targets: ["HTTP2GlueFuzz"]),
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
        // includes <sys/types.h> first (see Sources/CEvent/shim.h).
        .systemLibrary(name: "CEvent", pkgConfig: "libevent", providers: [.apt(["libevent-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // TLS session ticket keys (nginx's 80-byte format) for server contexts: C, because
        // OpenSSL's ticket callback finds the keys through one program-wide ex data index.
        .target(name: "CTicketKeys", dependencies: ["COpenSSL"]),
        // OpenSSL's allocator: per-thread free lists by size class, so the record buffers a
        // session frees whenever they are empty cost no call into malloc. C, because the
        // lists must be one set per thread for the whole program.
        .target(name: "CTLSMemory", dependencies: ["COpenSSL"]),
        // The sans-I/O HTTP/1.1 codec: bytes to request heads and bodies, response heads to
        // bytes. No Foundation, no libevent, no I/O.
        .target(name: "HTTPCodec"),
        // What every layer shares, the transport included: JSON read and written, IP
        // addresses and ranges, trace context, ids, a lock, content negotiation of HTTP fields,
        // and problem bodies (RFC 9457) with their field errors. Foundation and the codec's
        // list syntax only; no C, no I/O, nothing of the product.
        .target(name: "GatewaySupport", dependencies: ["HTTPCodec"]),
        // Traces: the sampler, spans as values, the batch queue, OTLP's protobuf and JSON
        // encodings, the exporter's retry rules and the OpenTelemetry variables. Pure: no C,
        // no I/O; the transport records spans into it, the runtime exports them.
        .target(name: "Tracing", dependencies: ["HTTPCodec", "GatewaySupport"]),
        // Pure contract and mapping code: products, money, locales, origin generations,
        // writes. Foundation and GatewaySupport only, no C, no I/O; above the HTTP interface
        // and the transport, neither of which sees it.
        .target(name: "GatewayModels", dependencies: ["HTTPCodec", "GatewaySupport"]),
        // Bearer tokens (signed JWTs) and identity providers' key sets: read strictly and
        // verified with swift-crypto. Pure: no I/O, no clock of its own.
        .target(
            name: "Authentication",
            dependencies: [
                "GatewayModels", "GatewaySupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // libvips from Debian; see Sources/CVips/module.modulemap.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // Image rendering with libvips: decode, orient, resize, strip, encode. Synchronous, no
        // I/O; the only target that imports CVips.
        .target(name: "ImageProcessing", dependencies: ["CVips"]),
        // What the transport, the app and every protocol share: requests, responses, problems,
        // header lists, request ids, origin requests and answers, Redis replies, and the
        // protocols through which handlers reach their loop, the origin and Redis. No C.
        .target(name: "HTTPInterface", dependencies: ["HTTPCodec", "GatewaySupport", "Tracing"]),
        // Metrics (the Prometheus registry, per-loop request handles) and logs (the batched
        // log writer, access lines): what the transport and the app both report through.
        .target(
            name: "Observability",
            dependencies: [
                "HTTPInterface",
                "HTTPCodec",
                "GatewaySupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // gzip and gunzip of whole bodies over zlib, and when answers are gzipped; the only
        // target that imports CZlib.
        .target(name: "BodyCompression", dependencies: ["CZlib", "GatewaySupport", "HTTPInterface"]),
        // The route table (each route with its handler, stored answer and rate-limit class)
        // and `RouterApplication`, the `ServerApplication` over it. No C, no transport.
        .target(
            name: "Routing",
            dependencies: [
                "HTTPCodec", "HTTPInterface", "GatewayModels", "GatewaySupport", "Observability", "Tracing", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Event loops, the HTTP/1.1 and HTTP/2 server (listener, client connections, TLS,
        // nghttp2 sessions) and the origin client: the only targets that import CEvent and
        // COpenSSL are this one and RedisClient, and the only one that imports CNghttp2. It
        // reaches the application only through HTTPInterface's `ServerApplication`.
        .target(
            name: "Transport",
            dependencies: [
                "CEvent",
                "COpenSSL",
                "CTicketKeys",
                "CTLSMemory",
                "CNghttp2",
                "HTTPInterface",
                "HTTPCodec",
                "GatewaySupport",
                "BodyCompression",
                "Observability",
                "Tracing",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The Redis connection (hiredis' RESP formatting and reply reader, over the transport's
        // plain or TLS stream on a loop); the only target that imports CHiredis. What does not share state across replicas does not link it.
        .target(
            name: "RedisClient",
            dependencies: ["CHiredis", "CEvent", "Transport", "HTTPInterface", "GatewaySupport", "Observability", .product(name: "Logging", package: "swift-log")]
        ),
        // The gateway application: routes, rate limits, reads, writes, caches, images,
        // replicas, configuration. No C module, no transport: it sees loops, the origin and
        // Redis through HTTPInterface's protocols.
        .target(
            name: "Gateway",
            dependencies: [
                "Authentication",
                "Routing",
                "BodyCompression",
                "HTTPInterface",
                "Observability",
                "Tracing",
                "GatewayModels", "GatewaySupport",
                "HTTPCodec",
                "ImageProcessing",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The assembled gateway process: the application on the transport, with each loop's
        // Redis connection, the replicas' subscription and the rate-limit sync.
        .target(
            name: "GatewayRuntime",
            dependencies: [
                "Gateway",
                "Routing",
                "Transport",
                "RedisClient",
                "HTTPInterface",
                "HTTPCodec",
                "Observability",
                "Tracing",
                "BodyCompression",
                "GatewayModels", "GatewaySupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A stand-in for the origin (v1, v2 and v2b) on the gateway's transport and router:
        // tests, benchmarks, and the gateway's default run without --origin. Not on the app.
        .target(
            name: "DemoOrigin",
            dependencies: [
                "Routing",
                "Transport",
                "HTTPInterface",
                "HTTPCodec",
                "GatewayModels", "GatewaySupport",
                // The catalogue's photo-sized pictures, encoded by libvips.
                "ImageProcessing",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A small OpenID Connect identity provider for `gateway --demo-auth`: a key made at
        // start, its key set, tokens for the demo vendors. Not on the app.
        .target(
            name: "DemoIdentityProvider",
            dependencies: [
                "Routing",
                "HTTPCodec",
                "Transport",
                "HTTPInterface",
                "GatewayModels", "GatewaySupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `demo-origin` executable.
        .executableTarget(
            name: "DemoOriginCLI",
            dependencies: [
                "DemoOrigin",
                "Transport",
                "Observability",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `gateway` executable: flags and environment into a configuration, then run.
        .executableTarget(
            name: "GatewayCLI",
            dependencies: [
                "Authentication",
                "GatewayRuntime",
                "Gateway",
                "Transport",
                "HTTPInterface",
                "BodyCompression",
                "GatewayModels", "GatewaySupport",
                "Observability",
                "Tracing",
                "DemoOrigin",
                "DemoIdentityProvider",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "GatewayModelsTests",
            dependencies: [
                "GatewayModels", "GatewaySupport",
                "TestSupport",
                .product(name: "Yams", package: "Yams"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ],
            resources: [.copy("Fixtures")]
        ),
        // `swift run -c release ModelsBenchmark`: decode + map + format + encode of the v1 sample page.
        .executableTarget(
            name: "ModelsBenchmark",
            dependencies: ["GatewayModels", "GatewaySupport"],
            path: "Benchmarks/ModelsBenchmark"
        ),
        // `swift run -c release PlaceholderBenchmark [files]`: a placeholder's cost per image on a worker.
        .executableTarget(
            name: "PlaceholderBenchmark",
            dependencies: ["GatewayModels", "GatewaySupport", "ImageProcessing"],
            path: "Benchmarks/PlaceholderBenchmark"
        ),
        // `swift run -c release TracingBenchmark`: the exporter's work per server span (attributes, protobuf, gzip).
        .executableTarget(
            name: "TracingBenchmark",
            dependencies: ["Tracing", "GatewaySupport", "BodyCompression"],
            path: "Benchmarks/TracingBenchmark"
        ),
        // `swift run -c release TokenBenchmark`: a bearer token's verification per algorithm.
        .executableTarget(
            name: "TokenBenchmark",
            dependencies: [
                "Authentication", "GatewayModels", "GatewaySupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Benchmarks/TokenBenchmark"
        ),
        // Helpers shared by the test targets (seeded test data).
        .target(name: "TestSupport", dependencies: ["CNghttp2"], path: "Tests/TestSupport"),
        // Real photos for the image tests: pixels encoded by libvips, metadata spliced in.
        .target(name: "TestPhotos", dependencies: ["CVips", "ImageProcessing"], path: "Tests/TestPhotos"),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "GatewayRuntime", "Routing", "Transport", "RedisClient", "GatewayCLI", "GatewayModels", "GatewaySupport", "HTTPInterface", "Observability",
                "Tracing", "BodyCompression", "CHiredis", "COpenSSL", "CTLSMemory", "DemoOrigin", "DemoIdentityProvider", "ImageProcessing", "TestSupport", "TestPhotos",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto")]),
        // Tests/HTTP1Fuzz is the codec's libFuzzer target: scripts/fuzz compiles it with swiftc.
        .testTarget(name: "HTTPCodecTests", dependencies: ["HTTPCodec"]),
        .testTarget(name: "TracingTests", dependencies: ["Tracing", "GatewaySupport"]),
        .testTarget(
            name: "AuthenticationTests",
            dependencies: [
                "Authentication", "GatewayModels", "GatewaySupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(name: "ImageProcessingTests", dependencies: ["ImageProcessing", "TestPhotos"]),
        .executableTarget(name: "HTTP1Probe", dependencies: ["HTTPCodec"], path: "Tests/HTTP1Probe"),
        .executableTarget(name: "ThumbHashProbe", dependencies: ["GatewayModels", "GatewaySupport"], path: "Tests/ThumbHashProbe"),
        .executableTarget(name: "JWTProbe", dependencies: ["Authentication"], path: "Tests/JWTProbe"),
        // libFuzzer's driver, declared (Tests/CLibFuzzer/libfuzzer.h).
        .systemLibrary(name: "CLibFuzzer", path: "Tests/CLibFuzzer"),
        .executableTarget(
            name: "HTTP2GlueFuzz",
            dependencies: [
                "Transport", "Routing", "HTTPInterface", "HTTPCodec", "GatewayModels", "GatewaySupport", "Observability", "CNghttp2", "CLibFuzzer", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HTTP2GlueFuzz", exclude: ["Findings"]),
        .testTarget(name: "DemoOriginTests", dependencies: ["DemoOrigin", "DemoOriginCLI", "Transport", "Routing", "GatewayModels", "GatewaySupport", "HTTPInterface", "BodyCompression", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
