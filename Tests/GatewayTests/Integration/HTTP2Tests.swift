import Foundation
@testable import Gateway
@testable import GatewayRuntime
@testable import HTTPInterface
@testable import Observability
@testable import Routing
import Synchronization
import TestSupport
import Testing

extension IntegrationTests {
    /// HTTP/2 (nghttp2 on the gateway's loops): h2c with prior knowledge and `h2` by ALPN, the
    /// same answers as HTTP/1.1 through the same application, and the bounds the gateway puts
    /// on what nghttp2 leaves open.
    @Suite struct HTTP2 {
        /// Fields compared between the protocols: what the application decides.
        static let compared = ["content-type", "content-language", "content-encoding", "etag", "vary", "cache-control", "allow", "location"]

        /// Every read route over HTTP/1.1 and then over HTTP/2 (the second read of each is a
        /// hit, from the same stored bytes): the same status, fields and body.
        @Test func everyReadRouteAnswersAlikeOnBothProtocols() async throws {
            try await ReadPathHarness.with(generation: .v2b) { harness in
                let port = harness.port
                let detail = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products/3") }
                let image = try #require((try detail.json()["images"] as? [String])?.first)
                let cases: [(String, String, [(String, String)])] = [
                    ("GET", "/healthz", []),
                    ("GET", "/v1/products?pageSize=3", []),
                    ("GET", "/v1/products?pageSize=3", [("accept-encoding", "gzip")]),
                    ("GET", "/v1/products?q=%ED%82%A4%EB%B3%B4%EB%93%9C&pageSize=2", [("accept-language", "en-US")]),
                    ("GET", "/v1/products/3", []),
                    ("HEAD", "/v1/products/3", []),
                    ("GET", "/v1/products/999999", []),
                    ("GET", "/v1/products?page=0", []),
                    ("GET", image + "?w=160", [("accept", "image/webp")]),
                    ("OPTIONS", "/v1/products", []),
                    ("DELETE", "/healthz", []),
                    ("GET", "/nowhere", []),
                ]
                for (method, path, headers) in cases {
                    let (one, two) = try await offPool {
                        let http1 = try RawHTTPClient(port: port).request(method, path, headers: headers.map { "\($0.0): \($0.1)" })
                        let http2 = try HTTP2TestClient(port: port).send([.init(method, path, headers: headers)])[0]
                        return (http1, http2)
                    }
                    #expect(two.status == one.status, "\(method) \(path)")
                    for name in Self.compared {
                        #expect(two.header(name) == one.header(name), "\(method) \(path): \(name)")
                    }
                    #expect(two.header("x-request-id")?.count == 32, "\(method) \(path)")
                    #expect(two.header("date") != nil)
                    #expect(two.header("connection") == nil && two.header("keep-alive") == nil && two.header("transfer-encoding") == nil)
                    if one.header("Content-Type") == GatewayError.problemContentType {
                        let first = try one.json()
                        let second = try #require(try JSONSerialization.jsonObject(with: Data(two.body)) as? [String: Any])
                        #expect(second["status"] as? Int == first["status"] as? Int)
                        #expect(second["detail"] as? String == first["detail"] as? String)
                        #expect(second["type"] as? String == first["type"] as? String)
                        #expect(second["requestId"] as? String == two.header("x-request-id"))
                    } else {
                        #expect(two.body == one.body, "\(method) \(path)")
                    }
                    if method == "HEAD" {
                        #expect(two.body.isEmpty)
                        #expect(two.header("content-length") == one.header("Content-Length"))
                    } else if one.status != 204 && one.status != 304 {
                        #expect(two.header("content-length") == String(two.body.count), "\(method) \(path)")
                    }
                }
            }
        }

        /// An ETag from HTTP/1.1 revalidates over HTTP/2 (304, no body), and one connection
        /// carries requests one after another and a hundred at once.
        @Test func conditionalRequestsAndAHundredStreamsAtOnce() async throws {
            try await ReadPathHarness.with(generation: .v1) { harness in
                let port = harness.port
                let (first, again, many, settings) = try await offPool {
                    let client = try HTTP2TestClient(port: port)
                    let first = try client.get("/v1/products/3")
                    let again = try client.get("/v1/products/3", headers: [("if-none-match", first.header("etag") ?? "")])
                    let many = try client.send((1...100).map { .init("GET", "/v1/products/\($0)") })
                    return (first, again, many, client.serverSettings)
                }
                #expect(first.status == 200)
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
                #expect(again.header("etag") == first.header("etag"))
                #expect(many.map(\.status) == Array(repeating: 200, count: 100))
                #expect(many.map { (try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any])?["id"] as? Int } == (1...100).map { $0 })
                #expect(settings[3] == 100, "SETTINGS_MAX_CONCURRENT_STREAMS")
                #expect(settings[6].map(Int.init) == 16_384, "SETTINGS_MAX_HEADER_LIST_SIZE is --max-header-bytes")
            }
        }

        /// Answers ready together go out one after the other (RFC 9218: the default urgency,
        /// not incremental), not round-robin in 16 KB frames, so on a slow link each completes
        /// as early as it can; a `priority` field moves a stream ahead.
        @Test func answersGoOutOneAfterTheOtherByPriority() async throws {
            try await ReadPathHarness.with(generation: .v1) { harness in
                let port = harness.port
                let paths = (97...100).map { "/v1/products?page=1&pageSize=\($0)" }
                let (warm, plain, prioritised, settings) = try await offPool {
                    let client = try HTTP2TestClient(port: port)
                    let warm = try client.send(paths.map { .init("GET", $0) })
                    let before = client.dataFrameStreams.count
                    let plain = try client.send(paths.map { .init("GET", $0) })
                    let plainOrder = Array(client.dataFrameStreams[before...])
                    let middle = client.dataFrameStreams.count
                    // The last request asks for the highest urgency.
                    let requests = paths.enumerated().map { index, path in
                        HTTP2TestClient.Request("GET", path, headers: index == 3 ? [("priority", "u=0")] : [])
                    }
                    let prioritised = try client.send(requests)
                    return (warm, (plain, plainOrder), (prioritised, Array(client.dataFrameStreams[middle...])), client.serverSettings)
                }
                #expect(settings[9] == 1, "SETTINGS_NO_RFC7540_PRIORITIES")
                #expect(warm.map(\.status) == [200, 200, 200, 200])
                // Each answer spans at least two DATA frames.
                #expect(plain.0.map { $0.header("cache-status")?.contains("hit") } == [true, true, true, true])
                #expect(plain.0.map { $0.body.count > 16_384 } == [true, true, true, true], "\(plain.0.map(\.body.count))")
                #expect(plain.0.map(\.body) == warm.map(\.body))
                func runs(_ streams: [Int32]) -> [Int32] {
                    streams.reduce(into: []) { runs, stream in if runs.last != stream { runs.append(stream) } }
                }
                // Streams 9, 11, 13, 15 on this connection (after 1–7): whole, in order.
                #expect(runs(plain.1) == [9, 11, 13, 15])
                #expect(plain.1.count >= 8)
                #expect(prioritised.0.map(\.status) == [200, 200, 200, 200])
                #expect(runs(prioritised.1) == [23, 17, 19, 21])
            }
        }

        /// A connection that idles past a second gives its session's frame buffer back
        /// (its pages); the next streams on it are served as before.
        @Test func aConnectionThatIdledStillServes() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1) { server in
                let port = server.port
                let (before, after) = try await offPool {
                    let client = try HTTP2TestClient(port: port)
                    let before = try client.send([.init("GET", "/big?size=40000"), .init("GET", "/healthz")])
                    Thread.sleep(forTimeInterval: 1.6)
                    let after = try client.send([.init("GET", "/big?size=40000"), .init("GET", "/healthz")])
                    return (before, after)
                }
                #expect(before.map(\.status) == [200, 200])
                #expect(after.map(\.status) == [200, 200])
                #expect(after[0].body == before[0].body)
                #expect(after[0].body.count == 40_000)
                #expect(after[1].text == #"{"status":"ok"}"#)
            }
        }

        /// Every write route over HTTP/1.1 on one gateway and over HTTP/2 on another, each with
        /// a fresh demo origin, in the same order: JSON and multipart creates, an idempotent
        /// create and its replay, an update, a delete, and the refusals (field errors, media
        /// type, malformed JSON, no password, a bad id): the same statuses, fields and bodies
        /// (problems alike but for their request ids), and the same requests at the origin.
        @Test func everyWriteRouteAnswersAlikeOnBothProtocols() async throws {
            struct Answer {
                var status: Int
                var fields: [String: String]
                var body: [UInt8]
            }
            var form = Array("--XyZ\r\n".utf8)
            for (name, value) in [("title", "Multipart 상품"), ("description", "폼으로"), ("price", "1000"), ("currency", "KRW"), ("stock", "5"), ("password", "pw")] {
                form += Array("Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n--XyZ\r\n".utf8)
            }
            form += Array("Content-Disposition: form-data; name=\"images\"; filename=\"사진 1.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
            form += IntegrationTests.WritePath.png + Array("\r\n--XyZ--\r\n".utf8)
            let json = [("content-type", "application/json")]
            let writes: [(String, String, [(String, String)], [UInt8])] = [
                ("POST", "/v1/products", json, IntegrationTests.WritePath.createJSON()),
                ("POST", "/v1/products", [("content-type", "multipart/form-data; boundary=XyZ")], form),
                ("POST", "/v1/products", json + [("idempotency-key", "k-1")], IntegrationTests.WritePath.createJSON(title: "once")),
                ("POST", "/v1/products", json + [("idempotency-key", "k-1")], IntegrationTests.WritePath.createJSON(title: "once")),
                ("PATCH", "/v1/products/3", json, Array(#"{"price":990000,"discountedPrice":99000,"password":"password"}"#.utf8)),
                ("GET", "/v1/products/3", [], []),
                ("DELETE", "/v1/products/128", json, Array(#"{"password":"pw1234"}"#.utf8)),
                ("GET", "/v1/products/128", [], []),
                ("POST", "/v1/products", json, Array(#"{"price":-1,"currency":"XXQ"}"#.utf8)),
                ("POST", "/v1/products", [("content-type", "text/plain")], Array("hello".utf8)),
                ("POST", "/v1/products", json, Array("{not json".utf8)),
                ("PATCH", "/v1/products/3", json, Array(#"{"price":5}"#.utf8)),
                ("DELETE", "/v1/products/abc", json, Array(#"{"password":"x"}"#.utf8)),
            ]
            let fields = Self.compared + ["idempotent-replayed"]
            var answers: [[Answer]] = []
            var originCounts: [[Int]] = []
            for overHTTP2 in [false, true] {
                try await ReadPathHarness.with { harness in
                    let port = harness.port
                    let got = try await offPool { () -> [Answer] in
                        if overHTTP2 {
                            let client = try HTTP2TestClient(port: port)
                            return try writes.map { method, path, headers, body in
                                let answer = try client.send([.init(method, path, headers: headers, body: body)])[0]
                                return Answer(
                                    status: answer.status, fields: Dictionary(uniqueKeysWithValues: fields.compactMap { name in answer.header(name).map { (name, $0) } }),
                                    body: answer.body)
                            }
                        }
                        let client = try RawHTTPClient(port: port)
                        return try writes.map { method, path, headers, body in
                            let answer = try client.request(method, path, headers: headers.map { "\($0.0): \($0.1)" }, body: body)
                            return Answer(
                                status: answer.status, fields: Dictionary(uniqueKeysWithValues: fields.compactMap { name in answer.header(name).map { (name, $0) } }),
                                body: answer.body)
                        }
                    }
                    answers.append(got)
                    let counts = harness.origin.counts
                    originCounts.append([counts.count("POST", "/item"), counts.count("PATCH", "/item/3"), counts.count("DELETE", "/item/128"), counts.total])
                }
            }
            let (one, two) = (answers[0], answers[1])
            #expect(one.map(\.status) == [201, 201, 201, 201, 200, 200, 200, 404, 400, 415, 400, 400, 400])
            #expect(two.map(\.status) == one.map(\.status))
            #expect(one[3].fields["idempotent-replayed"] == "true")
            // Image URLs are sealed with a fresh nonce each time, and a create's registeredAt
            // is the origin's clock: those are compared by shape, the rest exactly.
            func normalised(_ body: [UInt8]) throws -> NSDictionary {
                var object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
                for key in ["requestId", "traceId"] where object[key] != nil {
                    object[key] = "present"
                }
                for key in ["thumbnails", "images"] {
                    if let urls = object[key] as? [String] {
                        #expect(urls.allSatisfy { $0.hasPrefix("/v1/images/") })
                        object[key] = urls.count
                    }
                }
                if let registered = object["registeredAt"] as? String {
                    #expect(registered.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil)
                    object["registeredAt"] = "present"
                }
                return NSDictionary(dictionary: object)
            }
            for (index, (first, second)) in zip(one, two).enumerated() {
                let (method, path, _, _) = writes[index]
                #expect(second.fields.filter { $0.key != "etag" } == first.fields.filter { $0.key != "etag" }, "\(method) \(path)")
                #expect((second.fields["etag"] == nil) == (first.fields["etag"] == nil), "\(method) \(path)")
                #expect(try normalised(second.body) == normalised(first.body), "\(method) \(path)")
            }
            #expect(originCounts[0] == [3, 1, 1, originCounts[0][3]])
            #expect(originCounts[1] == originCounts[0])
        }

        /// Metrics and access lines name the protocol: HTTP/2 streams are counted apart from
        /// HTTP/1.1 requests of the same route.
        @Test func metricsCountEachProtocol() async throws {
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            try await TestServer.with(router: TestRoutes.router(metrics: metrics), metrics: metrics) { server in
                let port = server.port
                try await offPool {
                    let answers = try HTTP2TestClient(port: port).send([.init("GET", "/healthz"), .init("GET", "/healthz"), .init("PATCH", "/items/4")])
                    #expect(answers.map(\.status) == [200, 200, 200])
                    _ = try RawHTTPClient(port: port).request("GET", "/healthz", headers: ["Connection: close"])
                }
                // A request is counted once its answer is written, which the client may see
                // first: the figures are read once the last request's count is in.
                var lines: Set<String> = []
                _ = try await poll {
                    let text = (try? RawHTTPClient(port: port).request("GET", "/metrics").text) ?? ""
                    lines = Set(text.split(separator: "\n").map(String.init))
                    return lines.contains(where: { $0.hasPrefix(#"gateway_http_requests_total{route="/healthz",method="GET",protocol="HTTP/1.1""#) })
                }
                #expect(lines.contains(#"gateway_http_requests_total{route="/healthz",method="GET",protocol="HTTP/2",status="200"} 2"#))
                #expect(lines.contains(#"gateway_http_requests_total{route="/items/{id}",method="PATCH",protocol="HTTP/2",status="200"} 1"#))
                #expect(lines.contains(#"gateway_http_requests_total{route="/healthz",method="GET",protocol="HTTP/1.1",status="200"} 1"#))
            }
        }

        /// With TLS, ALPN offers h2 and http/1.1 (curl, Debian's, linked with nghttp2, is the
        /// client); in the clear, curl's prior knowledge gets the same bytes; `--http2 false`
        /// turns both off.
        @Test func alpnAndPriorKnowledgeWithCurl() async throws {
            let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            for enabled in [true, false] {
                try await TestServer.with(configure: {
                    $0.tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
                    $0.http2 = enabled
                }) { server in
                    let port = server.port
                    let versions = try await offPool {
                        try ["--http2", "--http1.1"].map { flag in
                            try Self.curl([flag, "-k", "-o", "/dev/null", "-w", "%{http_version}", "https://127.0.0.1:\(port)/healthz"])
                        }
                    }
                    #expect(versions == (enabled ? ["2", "1.1"] : ["1.1", "1.1"]))
                    // TLS 1.2 takes ECDHE with AEAD ciphers only.
                    let ciphers = try await offPool {
                        try ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES128-SHA", "AES128-SHA"].map { cipher in
                            try Self.curl(["--tlsv1.2", "--tls-max", "1.2", "--ciphers", cipher, "-k", "-o", "/dev/null", "-w", "%{http_code}",
                                           "https://127.0.0.1:\(port)/healthz"])
                        }
                    }
                    #expect(ciphers == ["200", "curl failed", "curl failed"])
                }
                try await TestServer.with(configure: { $0.http2 = enabled }) { server in
                    let port = server.port
                    let body = try await offPool { try Self.curl(["--http2-prior-knowledge", "-w", " %{http_version}", "http://127.0.0.1:\(port)/healthz"]) }
                    #expect(body == (enabled ? #"{"status":"ok"} 2"# : "curl failed"))
                }
            }
        }

        /// Sessions read ahead: frames in several TLS records of one TCP segment (the preface,
        /// SETTINGS and a request while the connection is still HTTP/1.1's, then two requests on
        /// the HTTP/2 connection) are all read, though one `read(2)` took them off the socket
        /// and no event says the later records wait in the session.
        @Test func framesInRecordsOfOneSegmentAreAllRead() async throws {
            let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            try await TestServer.with(threads: 1, configure: {
                $0.tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
            }) { server in
                let port = server.port
                let (negotiated, first, later) = try await offPool {
                    let client = try CorkedTLSClient(port: port, alpn: ["h2"])
                    func request(_ stream: UInt32) -> [UInt8] {
                        let block = HTTP2Frames.literal(":method", "GET") + HTTP2Frames.literal(":scheme", "https")
                            + HTTP2Frames.literal(":authority", "127.0.0.1") + HTTP2Frames.literal(":path", "/healthz")
                        return HTTP2Frames.frame(.headers, flags: HTTP2Frames.endHeaders | HTTP2Frames.endStream, stream: stream, block)
                    }
                    /// The streams of the HEADERS frames in `bytes` (whole frames only).
                    func answered(_ bytes: [UInt8]) -> [UInt32] {
                        var streams: [UInt32] = []
                        var offset = 0
                        while offset + 9 <= bytes.count {
                            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
                            guard offset + 9 + length <= bytes.count else { break }
                            let stream = bytes[(offset + 5)..<(offset + 9)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
                            if bytes[offset + 3] == HTTP2Frames.FrameType.headers.rawValue { streams.append(stream) }
                            offset += 9 + length
                        }
                        return streams
                    }
                    try client.send(records: [HTTP2Frames.preface, HTTP2Frames.frame(.settings), request(1)])
                    let first = answered(try client.read { answered($0).count == 1 })
                    try client.send(records: [request(3), request(5)])
                    let later = answered(try client.read { answered($0).count == 2 })
                    return (client.negotiated, first, later)
                }
                #expect(negotiated == "h2")
                #expect(first == [1])
                #expect(later == [3, 5])
            }
        }

        /// This process's resident memory (VmRSS), in bytes.
        static func residentBytes() -> Int {
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }

        /// `curl -s ARGS`: its output, or "curl failed" when it exits non-zero.
        static func curl(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-s", "--max-time", "5"] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : "curl failed"
        }
    }
}
