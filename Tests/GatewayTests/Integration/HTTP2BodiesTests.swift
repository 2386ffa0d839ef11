import Foundation
@testable import Gateway
@testable import HTTPInterface
@testable import Routing
import TestSupport
import Testing

extension IntegrationTests.HTTP2 {
    // Request bodies over HTTP/2: trailers, the body limits of the route table, writes.

    /// Trailers (HEADERS after the body, with END_STREAM) end the request: it is answered
    /// with its body, the trailer fields discarded as HTTP/1.1's chunked trailers are; over
    /// the head's limit they get 431, as over HTTP/1.1, and the connection goes on.
    @Test func trailersEndTheRequest() async throws {
        try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: { $0.maxHeaderBytes = 2048 }) { server in
            let port = server.port
            let answers = try await offPool {
                let client = try HTTP2TestClient(port: port)
                let echoed = try client.send([.init("POST", "/echo", body: Array("hello".utf8), trailers: [("x-checksum", "5d41402a")])])[0]
                let filler = (0..<3).map { ("x-filler-\($0)", String(repeating: "t", count: 1000)) }
                let tooLarge = try client.send([.init("POST", "/echo", body: Array("hello".utf8), trailers: filler)])[0]
                let after = try client.get("/healthz")
                return [echoed, tooLarge, after]
            }
            #expect(answers[0].status == 200)
            #expect(answers[0].text == "hello")
            #expect(answers[1].status == 431)
            #expect(answers[1].header("content-type") == GatewayError.problemContentType)
            #expect(answers[2].status == 200)
        }
    }

    /// Writes over HTTP/2: a JSON create is created once, a body over the limit is 413
    /// (declared or not) and a head over it 431, and the connection goes on serving.
    @Test func writesAndTheirLimits() async throws {
        try await ReadPathHarness.with(generation: .v1, configure: {
            $0.maxBodyBytes = 2048
            $0.maxUploadBytes = 4096
            $0.maxHeaderBytes = 2048
        }) { harness in
            let port = harness.port
            let draft = #"{"title":"h2","description":"over HTTP/2","price":100,"currency":"KRW","stock":1,"password":"pw","images":[{"data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}]}"#
            let answers = try await offPool {
                let client = try HTTP2TestClient(port: port)
                let created = try client.send([.init("POST", "/v1/products", headers: [("content-type", "application/json")], body: Array(draft.utf8))])[0]
                let tooLarge = try client.send([.init("POST", "/v1/products", headers: [("content-type", "application/json")], body: Array(repeating: 0x20, count: 5000))])[0]
                let undeclared = try client.send([.init("PATCH", "/v1/products/3", headers: [("content-type", "application/json")], body: Array(repeating: 0x20, count: 5000))])[0]
                let bigHead = try client.get("/v1/products/3", headers: [("x-filler", String(repeating: "a", count: 3000))])
                let after = try client.get("/v1/products/3")
                return [created, tooLarge, undeclared, bigHead, after]
            }
            #expect(answers[0].status == 201, "\(answers[0].text)")
            #expect(answers[0].header("location")?.hasPrefix("/v1/products/") == true)
            #expect(answers[1].status == 413)
            #expect(answers[1].header("content-type") == GatewayError.problemContentType)
            #expect(answers[2].status == 413)
            #expect(answers[3].status == 431)
            #expect(answers[4].status == 200)
            #expect(harness.origin.counts.count("POST", "/item") == 1)
        }
    }

    /// The routes that declare the upload limit in the route table (create and update)
    /// take a body past --max-body-bytes up to --max-upload-bytes, on both protocols; any
    /// other request gets 413 for it before its body is read.
    @Test func uploadRoutesComeFromTheRouteTable() async throws {
        try await ReadPathHarness.with(generation: .v1, configure: {
            $0.maxBodyBytes = 2048
            $0.maxUploadBytes = 4096
        }) { harness in
            let port = harness.port
            let body = Array(repeating: UInt8(ascii: " "), count: 3000)
            let json = [("content-type", "application/json")]
            let cases: [(String, String)] = [("POST", "/v1/products"), ("PATCH", "/v1/products/3"), ("PUT", "/v1/products/3"), ("POST", "/v1/products/3")]
            let statuses = try await offPool {
                let client = try HTTP2TestClient(port: port)
                var statuses: [[Int]] = []
                for (method, path) in cases {
                    let http2 = try client.send([.init(method, path, headers: json, body: body)])[0].status
                    let http1 = try RawHTTPClient(port: port).request(method, path, headers: ["Content-Type: application/json"], body: body).status
                    statuses.append([http2, http1])
                }
                return statuses
            }
            // Read whole and refused by validation (a body of spaces is no JSON object).
            #expect(statuses[0] == [400, 400])
            #expect(statuses[1] == [400, 400])
            #expect(statuses[2] == [413, 413])
            #expect(statuses[3] == [413, 413])
            #expect(harness.origin.counts.count("POST", "/item") == 0)
        }
    }
}
