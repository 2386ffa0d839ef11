import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
import GatewaySupport
import Testing
import TestSupport
import Tracing

extension IntegrationTests {
    /// The spans of the work a request waits on or causes, exported to the OTLP receiver
    /// (`opentelemetry-proto`): a wait on another request's fetch (with a link to it), a
    /// background refresh in a trace of its own (linked to its cause), Redis commands,
    /// a write, and the identity provider's key-set loads.
    @Suite struct TracingWork {
        typealias Spans = [[String: Any]]

        static func tracing(_ receiver: OTLPTestReceiver) -> TracingConfiguration {
            var tracing = TracingConfiguration(endpoint: receiver.endpoint)
            tracing.scheduleDelay = .milliseconds(20)
            return tracing
        }

        static func traceparent(_ traceID: String) -> String { "traceparent: 00-\(traceID)-00f067aa0ba902b7-01" }

        /// Waits until spans matching `condition` number `count`; returns all received.
        static func spans(_ receiver: OTLPTestReceiver, _ count: Int, where condition: @escaping ([String: Any]) -> Bool = { _ in true }) async throws
            -> Spans
        {
            var received: Spans = []
            let arrived = try await poll(for: .seconds(10)) {
                received = try receiver.spans()
                return received.filter(condition).count >= count
            }
            #expect(arrived, "\(received.filter(condition).count) of \(count) spans arrived: \(received.map { $0["name"] ?? "?" })")
            return received
        }

        static func attributes(_ span: [String: Any]) -> [String: Any] { span["attributes"] as? [String: Any] ?? [:] }
        static func links(_ span: [String: Any]) -> [[String: String]] { span["links"] as? [[String: String]] ?? [] }
        static func named(_ spans: Spans, _ name: String, trace: String? = nil) -> Spans {
            spans.filter { $0["name"] as? String == name && (trace == nil || $0["traceId"] as? String == trace) }
        }

        /// Two requests for one uncached product while the origin is slow: the second waits
        /// for the first one's fetch. Its trace has a `coalesced wait` span (INTERNAL, under
        /// its server span) linked to the first request's server span; only the first has a
        /// CLIENT span to the origin.
        @Test func aCoalescedMissWaitsWithALinkToTheFetchItJoined() async throws {
            let receiver = try OTLPTestReceiver()
            try await ReadPathHarness.with(demo: { $0.faults.latencyMs = 1000 }, configure: { $0.tracing = Self.tracing(receiver) }) { harness in
                let port = harness.port
                let (leader, follower) = ("11111111111111111111111111111111", "22222222222222222222222222222222")
                let first = Task {
                    try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products/7", headers: [Self.traceparent(leader)]).status }
                }
                #expect(try await poll(for: .seconds(5)) { harness.reads.coalescer.inProgress == 1 })
                let second = try await offPool {
                    try RawHTTPClient(port: port).request("GET", "/v1/products/7", headers: [Self.traceparent(follower)]).status
                }
                #expect(try await first.value == 200)
                #expect(second == 200)
                let spans = try await Self.spans(receiver, 4) { [leader, follower].contains($0["traceId"] as? String ?? "") }
                let leaderServer = try #require(Self.named(spans, "GET /v1/products/{id}", trace: leader).first)
                let followerServer = try #require(Self.named(spans, "GET /v1/products/{id}", trace: follower).first)
                #expect(Self.named(spans, "GET", trace: leader).count == 1)
                #expect(Self.named(spans, "GET", trace: follower).isEmpty)
                let wait = try #require(Self.named(spans, "coalesced wait", trace: follower).first)
                #expect(wait["kind"] as? Int == 1)
                #expect(wait["parentSpanId"] as? String == followerServer["spanId"] as? String)
                #expect(Self.links(wait) == [["traceId": leader, "spanId": leaderServer["spanId"] as? String ?? "?"]])
                let waited = (wait["end"] as? Int ?? 0) - (wait["start"] as? Int ?? 0)
                #expect(waited > 0)
            }
        }

        /// A stale product is answered at once and refreshed in the background: the refresh
        /// is a trace of its own, whose root span `background refresh` (INTERNAL, no parent)
        /// links to the request that found the page stale, with the origin's CLIENT span
        /// under it; the stale request's own trace has no origin span.
        @Test func aStaleAnswerRefreshesInATraceOfItsOwn() async throws {
            let receiver = try OTLPTestReceiver()
            try await ReadPathHarness.with(configure: { configuration in
                configuration.tracing = Self.tracing(receiver)
                configuration.readPath.detailTimeToLive = .zero
                configuration.readPath.cache.staleWhileRevalidate = .seconds(60)
            }) { harness in
                let port = harness.port
                let (miss, stale) = ("33333333333333333333333333333333", "44444444444444444444444444444444")
                let statuses = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let first = try client.request("GET", "/v1/products/3", headers: [Self.traceparent(miss)])
                    let second = try client.request("GET", "/v1/products/3", headers: [Self.traceparent(stale)])
                    return [first.status, second.status, second.header("Cache-Status").map { $0.contains("fwd=stale") ? 1 : 0 } ?? -1]
                }
                #expect(statuses == [200, 200, 1])
                _ = try await Self.spans(receiver, 1) { $0["name"] as? String == "background refresh" }
                let spans = try await Self.spans(receiver, 1) { $0["traceId"] as? String == stale && $0["kind"] as? Int == 2 }
                let staleServer = try #require(Self.named(spans, "GET /v1/products/{id}", trace: stale).first)
                #expect(Self.attributes(staleServer)["open_market.cache.status"] as? String == "stale")
                #expect(Self.named(spans, "GET", trace: stale).isEmpty)
                let root = try #require(Self.named(spans, "background refresh").first)
                let refreshTrace = try #require(root["traceId"] as? String)
                #expect(![miss, stale].contains(refreshTrace))
                #expect(root["parentSpanId"] as? String == "")
                #expect(root["kind"] as? Int == 1)
                #expect(Self.links(root) == [["traceId": stale, "spanId": staleServer["spanId"] as? String ?? "?"]])
                #expect(Self.attributes(root)["open_market.refresh.kind"] as? String == "stale_while_revalidate")
                #expect((root["status"] as? [String: Any])?["code"] as? Int == 0)
                let refreshed = try await Self.spans(receiver, 1) { $0["traceId"] as? String == refreshTrace && $0["kind"] as? Int == 3 }
                let fetch = try #require(refreshed.first { $0["traceId"] as? String == refreshTrace && $0["kind"] as? Int == 3 })
                #expect(fetch["parentSpanId"] as? String == root["spanId"] as? String)
                #expect(Self.attributes(fetch)["url.full"] as? String == "http://127.0.0.1:\(harness.origin.port ?? 0)/item/3")
            }
        }

        /// With `--redis-url`, each Redis command a recorded request's miss sends is a CLIENT
        /// span of it, named by the command, with `db.system.name` `redis`, the command as
        /// `db.operation.name` and the server's address; a write is a SERVER span with the
        /// origin's POST under it.
        @Test func redisCommandsAndAWriteAreSpans() async throws {
            let receiver = try OTLPTestReceiver()
            try await ReplicaHarness.with { replicas in
                let replica = try replicas.start { $0.tracing = Self.tracing(receiver) }
                defer { replica.shutdown() }
                let port = replica.server.port
                let (read, write) = ("55555555555555555555555555555555", "66666666666666666666666666666666")
                let statuses = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let detail = try client.request("GET", "/v1/products/4", headers: [Self.traceparent(read)])
                    let created = try client.request(
                        "POST", "/v1/products", headers: [Self.traceparent(write), "Content-Type: application/json", "Idempotency-Key: trace-write-1"],
                        body: IntegrationTests.WritePath.createJSON())
                    return [detail.status, created.status]
                }
                #expect(statuses == [200, 201])
                _ = try await Self.spans(receiver, 1) { $0["traceId"] as? String == read && $0["kind"] as? Int == 2 }
                let spans = try await Self.spans(receiver, 1) { $0["name"] as? String == "POST /v1/products" }
                let server = try #require(Self.named(spans, "GET /v1/products/{id}", trace: read).first)
                let commands = spans.filter { $0["traceId"] as? String == read && Self.attributes($0)["db.system.name"] as? String == "redis" }
                #expect(!commands.isEmpty)
                for command in commands {
                    let attributes = Self.attributes(command)
                    #expect(command["kind"] as? Int == 3)
                    #expect(command["parentSpanId"] as? String == server["spanId"] as? String)
                    #expect(command["name"] as? String == attributes["db.operation.name"] as? String)
                    #expect(["GET", "SET", "EVAL", "EVALSHA", "DEL", "MGET"].contains(attributes["db.operation.name"] as? String ?? "?"))
                    #expect(attributes["server.address"] as? String == "127.0.0.1")
                    #expect(attributes["server.port"] as? Int == replicas.redis.port)
                }
                let writeServer = try #require(Self.named(spans, "POST /v1/products", trace: write).first)
                #expect(Self.attributes(writeServer)["http.response.status_code"] as? Int == 201)
                let post = try #require(Self.named(spans, "POST", trace: write).first)
                #expect(post["parentSpanId"] as? String == writeServer["spanId"] as? String)
                // The v1 origin answers its create with 200; the gateway's answer is 201.
                #expect(Self.attributes(post)["http.response.status_code"] as? Int == 200)
                // The write's idempotency record in Redis: its commands are spans of the write.
                #expect(spans.contains { $0["traceId"] as? String == write && Self.attributes($0)["db.system.name"] as? String == "redis" })
            }
        }

        /// The identity provider's key set: the first load is a trace of its own (root span
        /// `auth.key_set.load`, reason `start`) with the discovery and key-set GETs as CLIENT
        /// spans under it; a recorded request whose token names an unknown `kid` waits (an
        /// `auth.key_set wait` span of it) for a load whose root links to it.
        @Test func keySetLoadsAreTracesLinkedToTheRequestThatAsked() async throws {
            let receiver = try OTLPTestReceiver()
            let provider = try TestIdentityProvider()
            defer { provider.shutdown() }
            provider.addKey("k1")
            try await ReadPathHarness.with(configure: { configuration in
                configuration.tracing = Self.tracing(receiver)
                provider.configure(&configuration, spacing: .zero)
            }) { harness in
                let started = try await Self.spans(receiver, 1) { $0["name"] as? String == "auth.key_set.load" }
                let load = try #require(Self.named(started, "auth.key_set.load").first)
                #expect(Self.attributes(load)["open_market.auth.key_set.reason"] as? String == "start")
                #expect(load["parentSpanId"] as? String == "")
                #expect(Self.links(load).isEmpty)
                let loadTrace = try #require(load["traceId"] as? String)
                let gets = started.filter { $0["traceId"] as? String == loadTrace && $0["kind"] as? Int == 3 }
                #expect(gets.compactMap { Self.attributes($0)["url.full"] as? String }.sorted() == [
                    "\(provider.issuer)/.well-known/openid-configuration", "\(provider.issuer)/jwks",
                ])
                #expect(gets.allSatisfy { $0["parentSpanId"] as? String == load["spanId"] as? String })
                #expect(try await poll(for: .seconds(5)) { harness.authKeys?.status == .fresh })

                provider.addKey("k2")
                let traceID = "77777777777777777777777777777777"
                let port = harness.port
                let token = provider.token(kid: "k2")
                let status = try await offPool {
                    try RawHTTPClient(port: port).request("GET", "/v1/products/2", headers: [Self.traceparent(traceID), "Authorization: Bearer \(token)"])
                        .status
                }
                #expect(status == 200)
                _ = try await Self.spans(receiver, 2) { $0["name"] as? String == "auth.key_set.load" }
                let spans = try await Self.spans(receiver, 1) { $0["traceId"] as? String == traceID && $0["kind"] as? Int == 2 }
                let server = try #require(Self.named(spans, "GET /v1/products/{id}", trace: traceID).first)
                let wait = try #require(Self.named(spans, "auth.key_set wait", trace: traceID).first)
                #expect(wait["parentSpanId"] as? String == server["spanId"] as? String)
                let refetch = try #require(Self.named(spans, "auth.key_set.load").first { Self.attributes($0)["open_market.auth.key_set.reason"] as? String == "unknown kid" })
                #expect(Self.links(refetch) == [["traceId": traceID, "spanId": server["spanId"] as? String ?? "?"]])
            }
        }

        /// A cold list with placeholders, waited for: under the list's server span, the origin
        /// page's CLIENT span, a `placeholder wait` span saying how many were asked for, and
        /// for each of those a `prefetch lane wait`, the source's CLIENT span and an
        /// `image.placeholder` span; the next page's prefetch is a trace of its own, linked.
        @Test func aColdListWithPlaceholdersIsATreeOfItsWork() async throws {
            let receiver = try OTLPTestReceiver()
            try await ImageHarness.with(configure: { configuration, _ in
                configuration.tracing = Self.tracing(receiver)
                configuration.readPath.placeholderWait = .seconds(10)
            }) { harness in
                let traceID = "88888888888888888888888888888888"
                let port = harness.port
                let status = try await offPool {
                    try RawHTTPClient(port: port).request("GET", "/v1/products?page=1&include=placeholders", headers: [Self.traceparent(traceID)]).status
                }
                #expect(status == 200)
                _ = try await Self.spans(receiver, 1) { $0["name"] as? String == "prefetch" && Self.links($0).first?["traceId"] == traceID }
                let spans = try await Self.spans(receiver, 1) { $0["traceId"] as? String == traceID && $0["kind"] as? Int == 2 }
                let server = try #require(Self.named(spans, "GET /v1/products", trace: traceID).first)
                let serverID = try #require(server["spanId"] as? String)
                let wait = try #require(Self.named(spans, "placeholder wait", trace: traceID).first)
                #expect(wait["parentSpanId"] as? String == serverID)
                let asked = try #require(Self.attributes(wait)["open_market.placeholders.asked"] as? Int)
                #expect(asked > 0)
                let previews = Self.named(spans, "image.placeholder", trace: traceID)
                #expect(previews.count == asked)
                #expect(previews.allSatisfy { $0["parentSpanId"] as? String == serverID && $0["kind"] as? Int == 1 })
                #expect(previews.allSatisfy { Self.attributes($0)["open_market.image.format"] as? String == "placeholder" })
                #expect(Self.named(spans, "prefetch lane wait", trace: traceID).count == asked)
                let fetches = spans.filter { $0["traceId"] as? String == traceID && $0["kind"] as? Int == 3 }
                let sources = fetches.filter { (Self.attributes($0)["url.full"] as? String)?.contains("/thumbnails/") == true }
                #expect(sources.count == asked)
                #expect(fetches.count > asked)
                #expect(fetches.allSatisfy { $0["parentSpanId"] as? String == serverID })
                let prefetch = try #require(Self.named(spans, "prefetch").first { Self.links($0).first?["traceId"] == traceID })
                #expect(Self.links(prefetch) == [["traceId": traceID, "spanId": serverID]])
                #expect(Self.attributes(prefetch)["open_market.prefetch.kind"] as? String == "page")
                #expect(prefetch["parentSpanId"] as? String == "")
            }
        }
    }
}
