import Foundation
@testable import Gateway
@testable import GatewayRuntime
import Glibc
import Logging
import Observability
import TestSupport
import Testing
@testable import Transport

extension IntegrationTests.ServerConnection {
    // HTTPS: keep-alive, pipelining and records, on the same connections as HTTP/1.1.

    /// Plain HTTP sent to the TLS port: a 400 problem in plain text that names the https://
    /// URL, then the end of the connection; counted. HTTPS on the same port goes on.
    @Test func plainHTTPOnTheTLSPortIsAnswered400() async throws {
        let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1", "DNS:localhost"])
        let tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        try await TestServer.with(router: TestRoutes.router(), metrics: metrics, configure: { $0.tls = tls }) { server in
            let port = server.port
            #expect(String(decoding: metrics.render(), as: UTF8.self).contains("gateway_plain_http_on_tls_total 0\n"))
            let (answer, closed) = try await offPool {
                let client = try RawHTTPClient(port: port)
                try client.send("GET /v1/products?page=1 HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n")
                let answer = try client.readResponse()
                return (answer, client.isClosedByPeer())
            }
            #expect(answer.status == 400)
            #expect(answer.header("Content-Type") == "application/problem+json")
            #expect(answer.header("Connection") == "close")
            let body = try answer.json()
            #expect(body["type"] as? String == "urn:open-market-gateway:problem:plain-http-on-tls-port")
            #expect(body["detail"] as? String == "plain HTTP sent to the TLS port; use https://localhost:\(port)/v1/products?page=1")
            #expect(body["requestId"] as? String == answer.header("X-Request-ID"))
            #expect(closed)
            #expect(String(decoding: metrics.render(), as: UTF8.self).contains("gateway_plain_http_on_tls_total 1\n"))
            let https = try await offPool {
                try Self.run("/usr/bin/curl", ["--silent", "--cacert", certificate.certificateFile, "https://localhost:\(port)/healthz"])
            }
            #expect(https.output == #"{"status":"ok"}"#)
        }
    }

    /// HTTPS on the gateway's own connections: keep-alive and pipelining over one TLS
    /// connection (s_client), and a standard client reusing its connection (curl).
    @Test func servesHTTPSWithKeepAliveAndPipelining() async throws {
        let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1", "DNS:localhost"])
        let tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        try await TestServer.with(router: TestRoutes.router(), configure: { $0.tls = tls }) { server in
            let port = server.port
            try await offPool {
                let bridge = try TLSBridge(port: port, caFile: certificate.certificateFile)
                let client = bridge.client
                let first = try client.request("GET", "/healthz")
                #expect(first.status == 200)
                #expect(first.text == #"{"status":"ok"}"#)
                #expect(first.header("Connection") == nil)
                let second = try client.request("POST", "/echo", body: Array("over tls".utf8))
                #expect(second.status == 200)
                #expect(second.text == "over tls")
                // Two requests in one write, the last one closing the connection.
                try client.send(
                    "GET /big?size=50000 HTTP/1.1\r\nHost: x\r\nX-Request-ID: tls-3\r\n\r\n"
                        + "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: tls-4\r\nConnection: close\r\n\r\n")
                let third = try client.readResponse()
                #expect(third.status == 200)
                #expect(third.header("X-Request-ID") == "tls-3")
                #expect(third.body == TestRoutes.jsonBody(size: 50000))
                let fourth = try client.readResponse()
                #expect(fourth.status == 200)
                #expect(fourth.header("X-Request-ID") == "tls-4")
                #expect(fourth.text == #"{"status":"ok"}"#)
                #expect(fourth.header("Connection") == "close")
                #expect(client.isClosedByPeer())
                // s_client ends cleanly once the server has closed the TLS connection.
                let exit = bridge.waitForExit()
                #expect(exit == 0, "s_client: \(String(decoding: bridge.stderr.fileHandleForReading.availableData, as: UTF8.self))")
            }
            let curl = try await offPool {
                try Self.run("/usr/bin/curl", [
                    "--silent", "--show-error", "--cacert", certificate.certificateFile,
                    "--write-out", "\n%{http_code} %{num_connects}\n",
                    "https://127.0.0.1:\(port)/healthz", "https://127.0.0.1:\(port)/healthz",
                ])
            }
            #expect(curl.status == 0, "\(curl.errors)")
            // The second URL went over the first one's connection (no new connect).
            #expect(curl.output == "{\"status\":\"ok\"}\n200 1\n{\"status\":\"ok\"}\n200 0\n")
        }
    }

    /// Large pipelined answers over TLS against a small output bound: partial TLS writes,
    /// paused reading and its release, all in order.
    @Test func pipelinedLargeAnswersOverTLSAllArrive() async throws {
        let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
        let tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: {
            $0.tls = tls
            $0.maxOutputBytes = 64 * 1024
        }) { server in
            let port = server.port
            try await offPool {
                let bridge = try TLSBridge(port: port, caFile: certificate.certificateFile)
                let client = bridge.client
                try client.send((0..<10).map { "GET /big?size=\(300_000 + $0) HTTP/1.1\r\nHost: x\r\nX-Request-ID: tb-\($0)\r\n\r\n" }.joined())
                // Let the server's output back up behind the unread socket pair first.
                Thread.sleep(forTimeInterval: 0.3)
                for index in 0..<10 {
                    let response = try client.readResponse()
                    #expect(response.status == 200)
                    #expect(response.header("X-Request-ID") == "tb-\(index)")
                    #expect(response.body == TestRoutes.jsonBody(size: 300_000 + index))
                }
                let last = try client.request("GET", "/healthz", headers: ["Connection: close"])
                #expect(last.status == 200)
                #expect(client.isClosedByPeer())
            }
        }
    }

    /// Sessions read ahead: three requests in three TLS records of one TCP segment are taken
    /// with one `read(2)`, and the two records left in the session (no socket event will
    /// say they are there) are answered too.
    @Test func requestsInRecordsOfOneSegmentAreAllAnswered() async throws {
        let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
        let tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: { $0.tls = tls }) { server in
            let port = server.port
            let text = try await offPool {
                let client = try CorkedTLSClient(port: port, alpn: ["http/1.1"])
                #expect(client.negotiated == "http/1.1")
                try client.send(records: (1...3).map { index in
                    Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: rec-\(index)\r\n\(index == 3 ? "Connection: close\r\n" : "")\r\n".utf8)
                })
                return String(decoding: try client.read { _ in false }, as: UTF8.self)
            }
            let ids = text.matches(of: /X-Request-ID: (rec-\d)/).map { String($0.1) }
            #expect(ids == ["rec-1", "rec-2", "rec-3"])
            #expect(text.matches(of: /HTTP\/1.1 200 OK/).count == 3)
        }
    }

    /// Runs `command` to its end; its status, stdout and stderr.
    static func run(_ command: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        if exited.wait(timeout: .now() + 30) == .timedOut { process.terminate() }
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }
}
