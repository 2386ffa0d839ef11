import Foundation
import GatewayModels
import OpenAPIKit
import Testing
import Yams
import GatewaySupport

/// `openapi.yaml` is the contract's source of truth: it must be valid OpenAPI 3.1, describe
/// every client endpoint, and accept exactly what the mapping produces.
@Suite struct OpenAPIDocumentTests {
    static let yaml = try! String(contentsOf: repositoryRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8)

    private static func validator() throws -> SchemaValidator {
        SchemaValidator(document: try #require(try Yams.load(yaml: yaml) as? [String: Any]))
    }

    @Test func isAValidOpenAPI31Document() throws {
        let document = try YAMLDecoder().decode(OpenAPI.Document.self, from: Self.yaml)
        #expect(document.openAPIVersion == .v3_1_0)
        try document.validate()
        _ = try document.locallyDereferenced()
    }

    /// Shared caches name entries by `ContractVersion.current`: it must follow the document.
    @Test func theContractVersionIsTheDocuments() throws {
        let document = try YAMLDecoder().decode(OpenAPI.Document.self, from: Self.yaml)
        #expect(document.info.version == ContractVersion.current)
    }

    @Test func describesEveryClientEndpoint() throws {
        let document = try YAMLDecoder().decode(OpenAPI.Document.self, from: Self.yaml)
        let operations = Set(document.paths.flatMap { path, item in
            (item.pathItemValue?.endpoints ?? []).map { "\($0.method.rawValue) \(path.rawValue)" }
        })
        #expect(operations == [
            "GET /v1/products", "POST /v1/products", "GET /v1/products/{id}", "PATCH /v1/products/{id}",
            "DELETE /v1/products/{id}", "GET /v1/images/{token}", "GET /healthz", "GET /readyz",
        ])
        let post = try #require(document.paths["/v1/products"]?.pathItemValue?.post)
        #expect(Set(post.requestBody?.requestValue?.content.keys.map(\.rawValue) ?? []) == ["application/json", "multipart/form-data"])
    }

    @Test func mappedPagesOfEveryGenerationValidate() throws {
        let validator = try Self.validator()
        for (generation, fixture) in [(OriginGeneration.v1, Fixture.v1ItemsPage), (.v2, .v2ProductsPage), (.v2b, .v2bProductsPage)] {
            for locale in [ClientLocale.koKR, .enUS] {
                let bytes = try generation.pageJSON(bytes: fixture.bytes, page: 1, locale: locale)
                let instance = try #require(JSONValue.parse(bytes))
                #expect(validator.validate(instance, schemaNamed: "ProductPage") == [], "\(generation) \(locale)")
            }
        }
    }

    @Test func mappedDetailsOfEveryGenerationValidate() throws {
        let validator = try Self.validator()
        for (generation, fixture) in [(OriginGeneration.v1, Fixture.v1Item), (.v2, .v2Product), (.v2b, .v2bProduct)] {
            let bytes = try generation.detailJSON(bytes: fixture.bytes, locale: .enUS)
            let instance = try #require(JSONValue.parse(bytes))
            #expect(validator.validate(instance, schemaNamed: "ProductDetail") == [], "\(generation)")
            #expect(!validator.validate(instance, schemaNamed: "ProductSummary").isEmpty)
        }
    }

    /// `include=placeholders`: every generation's page and detail with placeholders (one known,
    /// the rest null) validate; the members sit beside their URLs, aligned with them.
    @Test func answersWithPlaceholdersValidate() throws {
        let validator = try Self.validator()
        let known = ImagePlaceholder(width: 1000, height: 750, thumbHash: [87, 183, 9, 34, 4, 114, 128, 88, 120, 118, 135, 137])
        let first = Locked<Bool>(true)
        let lookup: ImagePlaceholderLookup = { _, _ in first.withLock { isFirst in defer { isFirst = false }; return isFirst ? known : nil } }
        for (generation, fixture) in [(OriginGeneration.v1, Fixture.v1ItemsPage), (.v2, .v2ProductsPage), (.v2b, .v2bProductsPage)] {
            first.withLock { $0 = true }
            let page = try generation.mapPage(bytes: fixture.bytes, page: 1, locale: .koKR, placeholders: lookup)
            #expect(page.items.allSatisfy { $0.thumbnailPlaceholders?.count == $0.thumbnails.count })
            #expect(page.items.first?.thumbnailPlaceholders?.first == known)
            let instance = try #require(JSONValue.parse(page.jsonBytes()))
            #expect(validator.validate(instance, schemaNamed: "ProductPage") == [], "\(generation)")
            let text = String(decoding: page.jsonBytes(), as: UTF8.self)
            #expect(text.contains(#""thumbnailPlaceholders":[{"width":1000,"height":750,"thumbHash":"V7cJIgRygFh4doeJ"}"#))
        }
        for (generation, fixture) in [(OriginGeneration.v1, Fixture.v1Item), (.v2, .v2Product), (.v2b, .v2bProduct)] {
            let detail = try generation.mapDetail(bytes: fixture.bytes, locale: .enUS, placeholders: { _, _ in known })
            #expect(detail.imagePlaceholders?.count == detail.images.count)
            #expect(detail.imageThumbnailPlaceholders?.count == detail.images.count)
            // Null exactly where the image has no thumbnail of its own.
            #expect(detail.imageThumbnailPlaceholders?.map { $0 == nil } == detail.imageThumbnails.map { $0 == nil })
            let instance = try #require(JSONValue.parse(detail.jsonBytes()))
            #expect(validator.validate(instance, schemaNamed: "ProductDetail") == [], "\(generation)")
        }
        // A malformed placeholder is refused by the schema.
        let bad = JSONValue.object(["width": .number(0), "height": .number(1), "thumbHash": .string("not base64!")])
        #expect(!validator.validate(bad, schemaNamed: "ImagePlaceholder").isEmpty)
        #expect(validator.validate(.null, schemaNamed: "ImagePlaceholder") == [])
    }

    @Test func problemAndHealthBodiesValidate() throws {
        let validator = try Self.validator()
        let problem = ProblemDetails(title: "Unprocessable Content", status: 422, detail: "2 fields are invalid.", requestId: "r-1",
                                     errors: [FieldError(field: "price", message: "price must not be negative.")])
        #expect(String(decoding: problem.jsonBytes(), as: UTF8.self) == #"{"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"2 fields are invalid.","requestId":"r-1","errors":[{"field":"price","message":"price must not be negative."}]}"#)
        // As sent: the transport adds the trace id to every problem.
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        let sent = ProblemDetails.addingTraceID(traceID, to: problem.jsonBytes())
        #expect(String(decoding: sent, as: UTF8.self).hasSuffix(#""price must not be negative."}],"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"}"#))
        #expect(validator.validate(try #require(JSONValue.parse(sent)), schemaNamed: "Problem") == [])
        // Without it the body is not what the contract promises.
        #expect(!validator.validate(try #require(JSONValue.parse(problem.jsonBytes())), schemaNamed: "Problem").isEmpty)
        let plain = ProblemDetails(title: "Not Found", status: 404, detail: "No product 9.", requestId: "r-2")
        #expect(validator.validate(try #require(JSONValue.parse(ProblemDetails.addingTraceID(traceID, to: plain.jsonBytes()))), schemaNamed: "Problem") == [])
        #expect(HealthStatus().jsonBytes() == #"{"status":"ok"}"#.bytes)
        #expect(validator.validate(try #require(JSONValue.parse(HealthStatus().jsonBytes())), schemaNamed: "Health") == [])
    }

    /// Writes take exactly the codes the gateway's ISO 4217 table holds.
    @Test func writeCurrenciesAreTheISO4217Table() throws {
        let document = try #require(try Yams.load(yaml: Self.yaml) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let codes = try #require((schemas["WriteCurrencyCode"] as? [String: Any])?["enum"] as? [String])
        #expect(codes == ISO4217.minorUnits.keys.sorted())
        let validator = try Self.validator()
        #expect(validator.validate(.string("KRW"), schemaNamed: "WriteCurrencyCode") == [])
        #expect(!validator.validate(.string("AAA"), schemaNamed: "WriteCurrencyCode").isEmpty)
    }

    @Test func readinessBodiesValidate() throws {
        let validator = try Self.validator()
        let ready = ReadinessStatus(draining: false, origin: .down, checkedAt: "2026-11-23T05:00:00Z")
        #expect(String(decoding: ready.jsonBytes(), as: UTF8.self) == #"{"status":"ready","origin":"down","checkedAt":"2026-11-23T05:00:00Z"}"#)
        #expect(validator.validate(try #require(JSONValue.parse(ready.jsonBytes())), schemaNamed: "Readiness") == [])
        let draining = ReadinessStatus(draining: true, origin: .up, checkedAt: "2026-11-23T05:00:00Z").problemJSON(requestId: "r-3")
        #expect(String(decoding: draining, as: UTF8.self) == #"{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"The gateway is shutting down and takes no new work; retry on another replica.","requestId":"r-3","readiness":"draining","origin":"up","checkedAt":"2026-11-23T05:00:00Z"}"#)
        let traceID = "0af7651916cd43dd8448eb211c80319c"
        #expect(validator.validate(try #require(JSONValue.parse(ProblemDetails.addingTraceID(traceID, to: draining))), schemaNamed: "ReadinessProblem") == [])
        let early = ReadinessStatus(draining: true, origin: nil, checkedAt: nil).problemJSON(requestId: "r-4")
        #expect(validator.validate(try #require(JSONValue.parse(ProblemDetails.addingTraceID(traceID, to: early))), schemaNamed: "ReadinessProblem") == [])
        #expect(!validator.validate(try #require(JSONValue.parse(draining)), schemaNamed: "Readiness").isEmpty)
    }

    /// The validator is only useful if it rejects: a few wrong instances must fail.
    @Test func theSchemasRejectWrongShapes() throws {
        let validator = try Self.validator()
        let good = try #require(JSONValue.parse(try OriginGeneration.v1.pageJSON(bytes: Fixture.v1ItemsPage.bytes, page: 1, locale: .koKR)))
        guard case .object(var page) = good, case .array(var items)? = page["items"], case .object(var item) = items[0] else {
            Issue.record("unexpected shape"); return
        }
        item["price"] = .string("1690")
        item["extra"] = .bool(true)
        item["registeredAt"] = .string("2021-01-24T21:26:03.723Z")
        item.removeValue(forKey: "display")
        items[0] = .object(item)
        page["items"] = .array(items)
        page["page"] = .number(Decimal(string: "1.5")!)
        let errors = validator.validate(.object(page), schemaNamed: "ProductPage")
        #expect(errors.count == 5)
        #expect(errors.contains("$: expected [\"integer\"], got number(1.5)") || errors.contains { $0.hasPrefix("$.page: expected") })
        #expect(errors.contains("$.items[0]: missing required display"))
        #expect(errors.contains("$.items[0]: unexpected property extra"))
    }

    @Test func readmeExampleIsWhatTheCodeProduces() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let page = try OriginGeneration.v1.mapPage(bytes: Fixture.v1ItemsPage.bytes, page: 1, locale: .koKR)
        let example = ProductPage(page: 1, items: Array(page.items.prefix(3)), hasNextPage: true)
        let compact = String(decoding: example.jsonBytes(), as: UTF8.self)
        let json = try #require(readme.range(of: "```json\n")).upperBound
        let end = try #require(readme[json...].range(of: "\n```")).lowerBound
        let shown = try #require(JSONValue.parse(Array(readme[json..<end].utf8)))
        #expect(shown == JSONValue.parse(Array(compact.utf8)))
    }
}
