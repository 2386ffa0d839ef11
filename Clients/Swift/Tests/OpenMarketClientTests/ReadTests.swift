import Foundation
import OpenAPIRuntime
import OpenMarketClient
import Testing

/// Every read operation through the generated client in its default configuration (the
/// runtime's default ISO 8601 date transcoder: whole seconds), against a release gateway in
/// front of its embedded demo origin in each generation.
@Suite struct ReadTests {
    @Test(arguments: Generation.allCases)
    func listPagesDecode(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let client = gateway.client()

        let first = try await client.listProducts(query: .init(page: 1, pageSize: 2))
        let ok = try first.ok
        let page = try ok.body.json
        #expect(page.page == 1)
        #expect(page.hasNextPage)
        #expect(page.items.map(\.id) == generation.firstIDs)
        #expect(ok.headers.contentLanguage == "ko-KR")
        #expect(ok.headers.eTag?.hasPrefix("\"") == true)
        let newest = try #require(page.items.first)
        if generation == .v1 {
            #expect(newest.title == "MacBook Pro")
            #expect(newest.price == 1690)
            #expect(newest.discountedPrice == nil)
            #expect(newest.currency == "USD")
            #expect(newest.stock == 0)
            #expect(newest.isSoldOut)
            #expect(newest.registeredAt == Date(timeIntervalSince1970: 1_611_523_563))
            #expect(newest.vendor == nil)
            #expect(newest.display == .init(price: "USD 1,690.00", discountedPrice: nil, discountRate: nil, stock: "품절"))
            #expect(page.items[1].stock == 1_000_000_000_000)
        } else {
            #expect(newest.title == "캠핑 의자 8세대")
            #expect(newest.price == 740.99)
            #expect(newest.currency == "USD")
            #expect(newest.stock == 423)
            #expect(!newest.isSoldOut)
            #expect(newest.registeredAt == Date(timeIntervalSince1970: 1_631_670_466))
            #expect(newest.vendor?.id == 1)
            #expect(newest.vendor?.name == (generation == .v2 ? nil : "Demo Market"))
            #expect(newest.display.price == "USD 740.99")
            #expect(page.items[1].registeredAt == Date(timeIntervalSince1970: 1_631_584_005))
            #expect(page.items[1].display.discountRate == "20%")
        }
        #expect(newest.thumbnails.count == (generation == .v1 ? 2 : 1))
        #expect(newest.thumbnails.allSatisfy { $0.hasPrefix("/v1/images/") })

        let second = try await client.listProducts(query: .init(page: 2, pageSize: 2)).ok.body.json
        #expect(second.page == 2)
        #expect(second.items.map(\.id) == (generation == .v1 ? [3, 4] : [125, 124]))

        // The default page size is the contract's 20.
        #expect(try await client.listProducts().ok.body.json.items.count == 20)
    }

    @Test(arguments: Generation.allCases)
    func searchIsAnswerOrA501Problem(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let output = try await gateway.client().listProducts(query: .init(pageSize: 3, q: "키보드"))
        switch output {
        case .ok(let ok):
            #expect(generation == .v2b)
            let page = try ok.body.json
            #expect(page.items.first?.id == 126)
            #expect(!page.items.isEmpty)
            #expect(page.items.allSatisfy { $0.title.contains("키보드") })
        case .notImplemented(let refusal):
            #expect(generation != .v2b)
            let problem = try refusal.body.applicationProblemJson
            #expect(problem.status == 501)
            #expect(problem._type == "about:blank")
            #expect(problem.title == "Not Implemented")
            #expect(problem.detail == "Search is not supported by this origin.")
            #expect(problem.traceId.count == 32)
            #expect(refusal.headers.xRequestID == problem.requestId)
        default:
            Issue.record("unexpected \(output)")
        }
    }

    @Test(arguments: Generation.allCases)
    func detailDecodesAndAConditionalGetIs304(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let client = gateway.client()
        let ok = try await client.getProduct(path: .init(id: 3)).ok
        let product = try ok.body.json
        #expect(product.id == 3)
        #expect(product.title == "Mac mini")
        #expect(product.description == "Mac mini: Open Market 데모 카탈로그의 상품입니다.")
        #expect(product.price == 890_000)
        #expect(product.discountedPrice == 89_000)
        #expect(product.currency == "KRW")
        #expect(product.stock == 90)
        #expect(!product.isSoldOut)
        #expect(product.registeredAt == Date(timeIntervalSince1970: 1_611_523_563))
        #expect(product.vendor == generation.productThreeVendor)
        #expect(product.display == .init(price: "KRW 890,000", discountedPrice: "KRW 89,000", discountRate: "90%", stock: "잔여수량: 90"))
        #expect(product.images.count == 1)
        #expect(product.imageThumbnails.count == 1)
        let etag = try #require(ok.headers.eTag)

        let again = try await client.getProduct(path: .init(id: 3), headers: .init(ifNoneMatch: etag))
        #expect(try again.notModified.headers.eTag == etag)

        // The device's languages pick the display strings.
        let english = try await gateway.client(preferredLanguages: ["en-US", "ko-KR"]).getProduct(path: .init(id: 3)).ok
        #expect(english.headers.contentLanguage == "en-US")
        #expect(try english.body.json.display.stock == "90 in stock")
        #expect(try english.body.json.registeredAt == product.registeredAt)
    }

    @Test(arguments: Generation.allCases)
    func anImageAtAWidthAsWebPAndIts304(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let client = gateway.client()
        let product = try await client.getProduct(path: .init(id: 3)).ok.body.json
        let token = try #require(product.images.first?.split(separator: "/").last.map(String.init))

        let output = try await client.getImage(
            path: .init(token: token), query: .init(w: ._320),
            headers: .init(accept: ImageFormats.acceptableContentTypes(avif: false, webp: true)))
        let ok = try output.ok
        #expect(ok.headers.vary == "Accept")
        let etag = try #require(ok.headers.eTag)
        guard case .imageWebp(let body) = ok.body else {
            Issue.record("not WebP: \(ok.body)"); return
        }
        let bytes = try await [UInt8](collecting: body, upTo: 4 << 20)
        // The demo origin's images are 64 pixels wide, and the gateway never upscales.
        #expect(webPWidth(bytes) == 64)

        let again = try await client.getImage(
            path: .init(token: token), query: .init(w: ._320),
            headers: .init(ifNoneMatch: etag, accept: ImageFormats.acceptableContentTypes(avif: false, webp: true)))
        #expect(try again.notModified.headers.eTag == etag)

        // A token the gateway did not seal is a typed 403.
        let forged = try await client.getImage(path: .init(token: "AAAA" + token.dropFirst(4)))
        let problem = try forged.forbidden.body.applicationProblemJson
        #expect(problem.status == 403)
    }

    @Test(arguments: Generation.allCases)
    func readinessAndHealth(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let client = gateway.client()
        let ready = try await client.readiness().ok.body.json
        #expect(ready.status == .ready)
        #expect(ready.origin == .up)
        #expect(ready.redis == nil)
        let checked = try #require(ready.checkedAt)
        #expect(abs(checked.timeIntervalSinceNow) < 60)
        #expect(checked.timeIntervalSince1970 == checked.timeIntervalSince1970.rounded(.down))
        #expect(try await client.health().ok.body.json.status == .ok)
    }

    @Test func aMissingProductIsATyped404() async throws {
        let gateway = try GatewayProcess(generation: Generation.v2b.rawValue)
        let output = try await gateway.client().getProduct(path: .init(id: 999_999))
        let problem = try output.notFound.body.applicationProblemJson
        #expect(problem.status == 404)
        #expect(problem.title == "Not Found")
        #expect(problem.errors == nil)
    }
}

/// Every answer the demo catalogue gives (its products are made from the captured origin
/// samples: Java E-notation prices, 10^12 stock, sold-out items, vendors named and not, every
/// image shape), decoded by the generated client: every list page at the largest page size,
/// then every product's detail.
@Suite struct CatalogueTests {
    @Test(arguments: Generation.allCases)
    func everyPageAndEveryDetailDecodes(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let client = gateway.client()
        var ids: [Int64] = []
        var page = 1
        while true {
            let answer = try await client.listProducts(query: .init(page: page, pageSize: 100)).ok.body.json
            #expect(answer.page == page)
            ids += answer.items.map(\.id)
            guard answer.hasNextPage else { break }
            page += 1
        }
        #expect(ids.count == 127)
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let product = try await client.getProduct(path: .init(id: id)).ok.body.json
            #expect(product.id == id)
            #expect(product.images.count == product.imageThumbnails.count)
            #expect(product.registeredAt.timeIntervalSince1970 == product.registeredAt.timeIntervalSince1970.rounded(.down))
        }
    }
}
