import Foundation
import OpenAPIRuntime
import OpenMarketClient
import Testing

/// The problems an operator's limits produce, as typed outputs of the generated client: 413
/// for a body over `--max-upload-bytes`, 429 with `Retry-After` and the RateLimit fields,
/// and 409 for an `Idempotency-Key` whose first request still runs on another replica.
@Suite struct LimitTests {
    @Test func aCreateOverTheUploadLimitIs413() async throws {
        let gateway = try GatewayProcess(generation: Generation.v1.rawValue, arguments: ["--max-upload-bytes", "512"])
        let client = gateway.client()
        let image = try await uploadImage(from: client)
        #expect(image.count > 512)
        let draft = Components.Schemas.ProductCreate(
            title: "big", description: "too big", price: 1, currency: .krw, stock: 1, password: "pw",
            images: [.init(data: Base64EncodedData(image))])
        let output = try await client.createProduct(body: .json(draft))
        let problem = try output.contentTooLarge.body.applicationProblemJson
        #expect(problem.status == 413)
        #expect(problem.title == "Content Too Large")
    }

    @Test func theSecondReadOverABudgetOfOneIs429() async throws {
        let gateway = try GatewayProcess(generation: Generation.v2b.rawValue, arguments: ["--rate-limit-reads", "1/m"])
        let client = gateway.client()
        let started = ContinuousClock.now
        let first = try await client.listProducts(query: .init(pageSize: 1)).ok
        #expect(first.headers.rateLimitPolicy == #""reads";q=1;w=60"#)
        #expect(first.headers.rateLimit == #""reads";r=0;t=60"#)

        let second = try await client.getProduct(path: .init(id: 3))
        let limited = try second.tooManyRequests
        // The budget is whole again 60 s after the first read: less by the time since then
        // (seconds on a loaded machine: the gate once took 6 s here).
        let retryAfter = try #require(limited.headers.retryAfter.flatMap { Int($0) })
        let elapsed = Int((ContinuousClock.now - started).components.seconds)
        #expect((59 - elapsed...60).contains(retryAfter))
        #expect(limited.headers.rateLimitPolicy == #""reads";q=1;w=60"#)
        #expect(limited.headers.rateLimit == "\"reads\";r=0;t=\(retryAfter)")
        let problem = try limited.body.applicationProblemJson
        #expect(problem.status == 429)
        #expect(problem._type == "urn:open-market-gateway:problem:rate-limited")

        // Health and readiness spend no budget.
        #expect(try await client.readiness().ok.body.json.status == .ready)
    }

    /// Two replicas sharing Redis in front of one slow origin: a retry on the second replica,
    /// whose wait bound (its origin timeout + 1 s) ends before the first create does, gets 409
    /// with `Retry-After`; the first gets its 201, and the origin saw one create.
    @Test func aKeyStillRunningOnAnotherReplicaIs409() async throws {
        let redis = try RedisProcess()
        let shared = ["--redis-url", redis.url, "--image-signing-key", "client-tests-shared-signing-key"]
        let first = try GatewayProcess(generation: Generation.v1.rawValue, arguments: shared + ["--origin-timeout", "5"])
        let origin = try #require(first.originURL)
        let second = try GatewayProcess(
            generation: Generation.v1.rawValue, arguments: shared + ["--origin", origin.absoluteString, "--origin-timeout", "0.5"])
        let image = try await uploadImage(from: first.client())
        let draft = Components.Schemas.ProductCreate(
            title: "slow", description: "created once", price: 100, currency: .krw, stock: 1, password: "pw-slow",
            images: [.init(data: Base64EncodedData(image))])
        let key = "client-slow-\(UUID().uuidString)"

        try await first.setOriginFaults(#"{"latencyMs":2500}"#)
        async let original = first.client().createProduct(headers: .init(idempotencyKey: key), body: .json(draft))
        try await Task.sleep(for: .milliseconds(300))
        let retry = try await second.client().createProduct(headers: .init(idempotencyKey: key), body: .json(draft))
        let conflict = try retry.conflict
        #expect(conflict.headers.retryAfter == "1")
        let problem = try conflict.body.applicationProblemJson
        #expect(problem.status == 409)
        #expect(problem._type == "urn:open-market-gateway:problem:idempotency-key-in-use")
        let created = try await original.created.body.json
        #expect(created.title == "slow")
        try await first.setOriginFaults(#"{"latencyMs":0}"#)

        // Once it has ended, the retry gets the first answer.
        let replayed = try await second.client().createProduct(headers: .init(idempotencyKey: key), body: .json(draft)).created
        #expect(replayed.headers.idempotentReplayed == ._true)
        #expect(try replayed.body.json.id == created.id)
    }
}
