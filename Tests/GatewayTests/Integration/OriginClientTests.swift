import Foundation
@testable import HTTPInterface
import Testing
import GatewaySupport
@testable import Gateway

extension IntegrationTests {
    /// The origin client against a real origin on 127.0.0.1: what it sends, how it pools,
    /// and how each failure comes back.
    @Suite struct OriginClientExchanges {
        /// Runs `body` with a fresh origin and client, and stops both afterwards.
        private func with(
            _ configure: (inout OriginClientConfiguration) -> Void = { _ in },
            _ body: (TestOrigin, TestOriginClient) async throws -> Void
        ) async throws {
            let origin = try TestOrigin()
            let client = try TestOriginClient(configure)
            defer {
                client.shutdown()
                origin.shutdown()
            }
            try await body(origin, client)
        }

        @Test func sendsHostRequestIDAndGzipAndReturnsTheResponse() async throws {
            try await with { origin, client in
                let response = try await client.get("/items/3", from: origin.endpoint, headers: ["X-Custom": "kept", "Host": "evil.example"]).get()
                #expect(response.status == 200)
                #expect(response.body == Array("{\"page\":3}".utf8))
                #expect(response.headers["X-Seen-Host"] == "127.0.0.1:\(origin.server.port)")
                #expect(response.headers["X-Seen-Request-ID"] == "test-/items/3")
                #expect(response.headers["X-Seen-Accept-Encoding"] == "gzip")
                #expect(response.headers["X-Seen-Custom"] == "kept")
            }
        }

        /// A request's trace goes to the origin as `traceparent`, named by the request's server
        /// span when it has one; never to a host the request does not propagate it to (image
        /// hosts).
        @Test func theTraceGoesOnlyWhereItIsPropagated() async throws {
            try await with { origin, client in
                let trace = TraceContext(
                    traceID: "4bf92f3577b34da6a3ce929d0e0e4736", parentID: "00f067aa0ba902b7", flags: "01", state: nil, spanID: "b7ad6b7169203331")
                var request = OriginRequest(method: .get, target: "/items/1", requestID: "r", trace: trace)
                let sent = try await client.client.send(request, to: origin.endpoint).get()
                #expect(sent.headers["X-Seen-Traceparent"] == "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01")
                request.propagatesTrace = false
                let kept = try await client.client.send(request, to: origin.endpoint).get()
                #expect(kept.headers["X-Seen-Traceparent"] == "")
            }
        }

        @Test func gzipBodiesAreInflatedAndCorruptOnesRefused() async throws {
            try await with { origin, client in
                let response = try await client.get("/gzipped", from: origin.endpoint).get()
                #expect(response.body == TestRoutes.jsonBody(size: 10_000))
                #expect(response.headers["Content-Encoding"] == nil)
                #expect(response.headers["Content-Length"] == "10000")
                let corrupt = await client.get("/corrupt-gzip", from: origin.endpoint)
                #expect(corrupt == .failure(.invalidResponse("the gzip body is corrupt")))
            }
        }

        @Test func bodiesGoOutExactlyWithTheirLength() async throws {
            try await with { origin, client in
                for method in [HTTPMethod.post, .patch, .delete] {
                    let body = Array("--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n맥북\r\n--b--\r\n".utf8)
                    let request = OriginRequest(
                        method: method, target: "/echo", headers: ["Content-Type": "multipart/form-data; boundary=b"], body: body,
                        requestID: "w")
                    let response = try await client.client.send(request, to: origin.endpoint).get()
                    #expect(response.status == 201)
                    #expect(response.body == body)
                    #expect(response.headers["X-Seen-Method"] == method.rawValue)
                    #expect(response.headers["X-Seen-Content-Type"] == "multipart/form-data; boundary=b")
                }
            }
        }

        @Test func sequentialRequestsReuseOneConnection() async throws {
            try await with { origin, client in
                var peers = Set<String>()
                for page in 1...5 {
                    let response = try await client.get("/items/\(page)", from: origin.endpoint).get()
                    peers.insert(response.headers["X-Peer"] ?? "")
                }
                #expect(peers.count == 1)
                #expect(await client.openConnections(to: origin.endpoint) == 1)
            }
        }

        @Test func concurrentRequestsShareAtMostTheCappedConnections() async throws {
            try await with({ $0.maxConnectionsPerLoop = 3 }) { origin, client in
                let endpoint = origin.endpoint
                let peers = await withTaskGroup(of: String?.self) { group in
                    for page in 1...40 {
                        group.addTask { try? await client.get("/items/\(page)", from: endpoint).get().headers["X-Peer"] }
                    }
                    return await group.reduce(into: [String?]()) { $0.append($1) }
                }
                #expect(peers.count == 40)
                #expect(peers.allSatisfy { $0 != nil })
                #expect(Set(peers).count <= 3)
                #expect(origin.hits("GET /items/1") == 1)
            }
        }

        @Test func aFullQueueIsRefusedAtOnce() async throws {
            try await with({
                $0.maxConnectionsPerLoop = 1
                $0.maxWaitersPerLoop = 1
            }) { origin, client in
                let endpoint = origin.endpoint
                let results = await withTaskGroup(of: Result<OriginResponse, OriginFailure>.self) { group in
                    for _ in 0..<3 { group.addTask { await client.get("/slow?ms=300", from: endpoint) } }
                    return await group.reduce(into: [Result<OriginResponse, OriginFailure>]()) { $0.append($1) }
                }
                #expect(results.filter { (try? $0.get())?.status == 200 }.count == 2)
                #expect(results.filter { $0 == .failure(.overloaded) }.count == 1)
            }
        }

        @Test func aSlowOriginTimesOutAndThePoolRecovers() async throws {
            try await with({ $0.requestTimeout = .milliseconds(300) }) { origin, client in
                #expect(await client.get("/slow?ms=3000", from: origin.endpoint) == .failure(.timedOut))
                let next = try await client.get("/items/1", from: origin.endpoint).get()
                #expect(next.status == 200)
            }
        }

        @Test func aRefusedConnectionIsAConnectFailure() async throws {
            let closed = try TestOrigin()
            let endpoint = closed.endpoint
            closed.shutdown()
            let client = try TestOriginClient()
            defer { client.shutdown() }
            let result = await client.get("/items/1", from: endpoint)
            #expect(result == .failure(.connectFailed("could not resolve or connect")))
        }

        @Test func anIdempotentRequestIsRetriedOnceOnAReusedConnectionThatBreaks() async throws {
            try await with { origin, client in
                _ = try await client.get("/items/1", from: origin.endpoint).get()
                #expect(await client.get("/drop", from: origin.endpoint) == .failure(.connectionLost))
                // Sent on the reused connection, dropped, sent once more on a new one.
                #expect(origin.hits("GET /drop") == 2)
                let after = try await client.get("/items/2", from: origin.endpoint).get()
                #expect(after.status == 200)
            }
        }

        @Test func writesAreNeverRetried() async throws {
            try await with { origin, client in
                _ = try await client.get("/items/1", from: origin.endpoint).get()
                let request = OriginRequest(method: .post, target: "/drop", body: Array("x".utf8), requestID: "w")
                let result = await client.client.send(request, to: origin.endpoint)
                #expect(result == .failure(.connectionLost))
                #expect(origin.hits("POST /drop") == 1)
            }
        }

        @Test func aResponseOverTheLimitIsRefused() async throws {
            try await with({ $0.maxResponseBytes = 1000 }) { origin, client in
                let atLimit = try await client.get("/big?size=1000", from: origin.endpoint).get()
                #expect(atLimit.body.count == 1000)
                #expect(await client.get("/big?size=5000", from: origin.endpoint) == .failure(.responseTooLarge(limit: 1000)))
            }
        }

        @Test func idleConnectionsExpire() async throws {
            try await with({ $0.idleTimeout = .milliseconds(200) }) { origin, client in
                _ = try await client.get("/items/1", from: origin.endpoint).get()
                #expect(await client.openConnections(to: origin.endpoint) == 1)
                for _ in 0..<300 where await client.openConnections(to: origin.endpoint) > 0 {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(await client.openConnections(to: origin.endpoint) == 0)
                let next = try await client.get("/items/2", from: origin.endpoint).get()
                #expect(next.status == 200)
            }
        }
    }
}
