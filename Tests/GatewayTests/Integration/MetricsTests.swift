@testable import Observability
import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests {
    @Suite struct Metrics {
        @Test func requestsAreCountedByRoutePatternMethodAndStatus() async throws {
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            try await TestServer.with(router: TestRoutes.router(metrics: metrics), metrics: metrics) { server in
                let port = server.port
                let (text, identity, gzip) = try await offPool { () -> (String, Int, Int) in
                    let client = try RawHTTPClient(port: port)
                    var identity = 0
                    for (method, path) in [("GET", "/healthz"), ("GET", "/healthz"), ("POST", "/healthz"), ("GET", "/v1/nope"), ("PATCH", "/items/9")] {
                        identity += try client.request(method, path, headers: ["X-Request-ID: metrics-test"]).body.count
                    }
                    let gzipped = try client.request("GET", "/big?size=5000", headers: ["Accept-Encoding: gzip"])
                    let page = try client.request("GET", "/metrics")
                    #expect(page.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
                    return (page.text, identity, gzipped.body.count)
                }
                let lines = Set(text.split(separator: "\n").map(String.init))
                #expect(lines.contains(#"gateway_http_requests_total{route="/healthz",method="GET",protocol="HTTP/1.1",status="200"} 2"#))
                #expect(lines.contains(#"gateway_http_requests_total{route="/healthz",method="POST",protocol="HTTP/1.1",status="405"} 1"#))
                #expect(lines.contains(#"gateway_http_requests_total{route="unmatched",method="GET",protocol="HTTP/1.1",status="404"} 1"#))
                #expect(lines.contains(#"gateway_http_requests_total{route="/items/{id}",method="PATCH",protocol="HTTP/1.1",status="200"} 1"#))
                #expect(lines.contains(#"gateway_http_requests_total{route="/big",method="GET",protocol="HTTP/1.1",status="200"} 1"#))
                #expect(lines.contains(#"gateway_http_request_duration_seconds_count{route="/healthz"} 3"#))
                #expect(lines.contains(#"gateway_http_response_body_bytes_total{encoding="identity"} \#(identity)"#))
                #expect(lines.contains(#"gateway_http_response_body_bytes_total{encoding="gzip"} \#(gzip)"#))
                #expect(lines.contains(#"gateway_http_response_uncompressed_bytes_total \#(identity + 5000)"#))
                #expect(!text.contains("/v1/nope"))
            }
        }

        /// `gateway_connections` counts the open client connections by the protocol they
        /// speak, read at each scrape; a connection that turned to HTTP/2 counts there.
        @Test func openConnectionsAreCountedByProtocol() async throws {
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            try await TestServer.with(metrics: metrics, threads: 1, configure: { $0.http2 = true }) { server in
                let port = server.port
                let lines = try await offPool { () -> Set<String> in
                    let http1 = try RawHTTPClient(port: port)
                    let http2 = try HTTP2TestClient(port: port)
                    #expect(try http1.request("GET", "/healthz").status == 200)
                    #expect(try http2.get("/healthz").status == 200)
                    return Set(String(decoding: metrics.render(), as: UTF8.self).split(separator: "\n").map(String.init))
                }
                #expect(lines.contains(#"gateway_connections{protocol="HTTP/1.1"} 1.0"#))
                #expect(lines.contains(#"gateway_connections{protocol="HTTP/2"} 1.0"#))
                // Both clients are gone: the server sees them close.
                let closed = try await poll {
                    let text = String(decoding: metrics.render(), as: UTF8.self)
                    return text.contains(#"gateway_connections{protocol="HTTP/1.1"} 0.0"#) && text.contains(#"gateway_connections{protocol="HTTP/2"} 0.0"#)
                }
                #expect(closed)
            }
        }

        @Test func originOutcomesAreCounted() async throws {
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            let origin = try TestOrigin()
            let client = try TestOriginClient(metrics: metrics)
            let down = try TestOrigin()
            let downEndpoint = down.endpoint
            down.shutdown()
            defer {
                client.shutdown()
                origin.shutdown()
            }
            _ = try await client.get("/items/1", from: origin.endpoint).get()
            _ = try await client.get("/items/2", from: origin.endpoint).get()
            _ = await client.get("/items/1", from: downEndpoint)
            let lines = Set(String(decoding: metrics.render(), as: UTF8.self).split(separator: "\n").map(String.init))
            #expect(lines.contains(#"gateway_origin_requests_total{outcome="200"} 2"#))
            #expect(lines.contains(#"gateway_origin_requests_total{outcome="connect_failed"} 1"#))
            #expect(lines.contains(#"gateway_origin_request_duration_seconds_count 3"#))
        }
    }
}
