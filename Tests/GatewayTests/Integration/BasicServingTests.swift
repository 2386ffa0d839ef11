import Foundation
import Testing
import TestSupport
@testable import Gateway
import Observability

extension IntegrationTests {
    @Suite struct BasicServing {
        @Test func healthzAnswers200JSON() async throws {
            try await TestServer.with { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let response = try client.request("GET", "/healthz")
                    #expect(response.status == 200)
                    #expect(response.header("Content-Type") == "application/json")
                    #expect(response.header("Cache-Control") == "no-store")
                    #expect(response.text == #"{"status":"ok"}"#)
                    let id = try #require(response.header("X-Request-ID"))
                    #expect(id.count == 32)
                    let echoed = try client.request("GET", "/healthz", headers: ["X-Request-ID: app-7f3a"])
                    #expect(echoed.header("X-Request-ID") == "app-7f3a")
                }
            }
        }

        @Test func patchAndOptionsNeverGet501() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let patched = try client.request("PATCH", "/items/7")
                    #expect(patched.status == 200)
                    #expect(patched.text == #"{"patched":"7"}"#)
                    let options = try client.request("OPTIONS", "/healthz")
                    #expect(options.status == 204)
                    #expect(options.header("Allow") == "GET, HEAD, OPTIONS")
                    for method in ["PATCH", "DELETE", "PUT", "TRACE"] {
                        let refused = try RawHTTPClient(port: port).request(method, "/healthz")
                        #expect(refused.status == 405, "\(method)")
                        #expect(refused.header("Allow") == "GET, HEAD, OPTIONS")
                    }
                }
            }
        }

        @Test func unknownPathIs404ProblemWithTheRequestID() async throws {
            try await TestServer.with { server in
                let port = server.port
                try await offPool {
                    let response = try RawHTTPClient(port: port).request("GET", "/v9/nothing", headers: ["X-Request-ID: r-404", TestTrace.header])
                    #expect(response.status == 404)
                    #expect(response.header("Content-Type") == "application/problem+json")
                    #expect(response.text == #"{"type":"about:blank","title":"Not Found","status":404,"detail":"No resource at this path.","requestId":"r-404","traceId":"\#(TestTrace.id)"}"#)
                }
            }
        }

        @Test func headSendsHeadersAndLengthButNoBody() async throws {
            try await TestServer.with { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let head = try client.request("HEAD", "/healthz")
                    #expect(head.status == 200)
                    #expect(head.header("Content-Length") == "15")
                    #expect(head.body.isEmpty)
                    // A stray body would be read as the next response's status line.
                    #expect(try client.request("GET", "/healthz").text == #"{"status":"ok"}"#)
                }
            }
        }

        @Test func keepAliveServesManyRequestsOnOneConnection() async throws {
            try await TestServer.with { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    var ids = Set<String>()
                    for _ in 0..<5 {
                        let response = try client.request("GET", "/healthz")
                        #expect(response.status == 200)
                        ids.insert(response.header("X-Request-ID") ?? "")
                    }
                    #expect(ids.count == 5)
                }
            }
        }

        @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let requests = (1...3).map { "PATCH /items/\($0) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n" }.joined()
                    try client.send(requests)
                    for index in 1...3 {
                        #expect(try client.readResponse().text == "{\"patched\":\"\(index)\"}")
                    }
                }
            }
        }

        @Test func bodiesArriveByteForByte() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    var generator = SeededGenerator(seed: 42)
                    let body = generator.bytes(200_000)
                    let response = try RawHTTPClient(port: port).request("POST", "/echo", body: body)
                    #expect(response.status == 200)
                    #expect(response.body == body)
                    let chunked = try RawHTTPClient(port: port)
                    try chunked.send(Array("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n".utf8)
                        + [0, 0, 1, 0, 0] + Array("\r\n3\r\nabc\r\n0\r\n\r\n".utf8))
                    #expect(try chunked.readResponse().body == [0, 0, 1, 0, 0] + Array("abc".utf8))
                }
            }
        }

        @Test func asyncAndDeferredHandlersReplyOnTheLoop() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    #expect(try client.request("GET", "/async").text == #"{"async":true}"#)
                    #expect(try client.request("GET", "/deferred").text == #"{"deferred":true}"#)
                    let failed = try client.request("GET", "/fails")
                    #expect(failed.status == 502)
                    #expect(try failed.json()["detail"] as? String == "The origin answered 500.")
                }
            }
        }

        @Test func burstOf200ConcurrentConnectionsIsAllAnswered() async throws {
            try await TestServer.with { server in
                let port = server.port
                let statuses = try await offPool { () -> [Int] in
                    let clients = try (0..<200).map { _ in try RawHTTPClient(port: port) }
                    for (index, client) in clients.enumerated() {
                        try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: burst-\(index)\r\n\r\n")
                    }
                    return try clients.enumerated().map { index, client in
                        let response = try client.readResponse()
                        return response.header("X-Request-ID") == "burst-\(index)" ? response.status : -1
                    }
                }
                #expect(statuses == Array(repeating: 200, count: 200))
            }
        }

        @Test func aDroppedConnectionSendsNoByteAndLeavesTheServerServing() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send("GET /drop HTTP/1.1\r\nHost: x\r\n\r\n")
                    #expect(client.isClosedByPeer())
                    #expect(throws: RawHTTPClient.ClientError.self) { try client.readResponse() }
                    #expect(try RawHTTPClient(port: port).request("GET", "/healthz").status == 200)
                }
                #expect(server.server.inFlight == 0)
            }
        }

        @Test func aClientThatLeavesBeforeTheReplyDoesNoHarm() async throws {
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            try await TestServer.with(router: TestRoutes.router(metrics: metrics), metrics: metrics, threads: 1) { server in
                let port = server.port
                try await offPool {
                    for _ in 0..<5 {
                        let client = try RawHTTPClient(port: port)
                        try client.send("GET /slow?ms=50 HTTP/1.1\r\nHost: x\r\n\r\n")
                    }
                }
                // Every abandoned request is still answered (into the void), counted and
                // released: waited for on the count of answers, since the server may not have
                // read a request yet when the clients are gone (inFlight is 0 then too).
                let answered = #"gateway_http_requests_total{route="/slow",method="GET",protocol="HTTP/1.1",status="200"} 5"#
                #expect(try await poll(for: .seconds(10)) {
                    String(decoding: metrics.render(), as: UTF8.self).contains(answered) && server.server.inFlight == 0
                })
                #expect(server.server.inFlight == 0)
                let status = try await offPool { try RawHTTPClient(port: port).request("GET", "/healthz").status }
                #expect(status == 200)
            }
        }
    }
}
