import DemoOrigin
import Foundation
import Testing
import TestSupport

extension IntegrationTests {
    /// The `gateway` executable as an operator runs it: configured by environment, answering
    /// on its port, and leaving with exit status 0 on SIGTERM or SIGINT.
    @Suite struct Executable {
        /// Starts the binary with `environment` added, waits for its "listening" line and
        /// returns it and its port.
        static func launch(environment: [String: String]) throws -> (BuiltExecutable, Int) {
            let gateway = try BuiltExecutable(
                "gateway", environment: ProcessInfo.processInfo.environment.merging(environment.merging(cacheDirectory) { old, _ in old }) { _, new in new })
            let seen = readUntilListening(gateway)
            let port = seen.firstMatch(of: gatewayListening).flatMap { Int($0.1) } ?? 0
            return (gateway, port)
        }

        /// A cache directory of the test's own, so the generated signing key never lands in
        /// the working directory.
        static var cacheDirectory: [String: String] {
            ["GATEWAY_CACHE_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("gateway-cache-\(UUID().uuidString)").path]
        }

        /// The gateway's own "listening" line; the demo origin it may start logs one too, as
        /// `demo-origin`.
        nonisolated(unsafe) static let gatewayListening = #/gateway: host=\S+ loops=\d+ port=(\d+) protocols=\S+ url=\S+ \[Gateway\] listening on /#

        /// stderr up to and including the gateway's "listening" line (or its end).
        static func readUntilListening(_ gateway: BuiltExecutable) -> String {
            gateway.readStderr { $0.firstMatch(of: gatewayListening) != nil }
        }

        @Test(arguments: [SIGTERM, SIGINT])
        func stopsWithExitStatusZeroOnSignal(_ signal: Int32) async throws {
            let (gateway, port) = try Self.launch(environment: [
                "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": "0", "GATEWAY_THREADS": "2", "GATEWAY_ORIGIN": "http://127.0.0.1:9",
            ])
            #expect(port > 0)
            let health = try await offPool { try RawHTTPClient(port: port).request("GET", "/healthz") }
            #expect(health.status == 200)
            #expect(health.text == #"{"status":"ok"}"#)
            gateway.signal(signal)
            let status = try await gateway.waitForExit()
            #expect(gateway.process.terminationReason == .exit)
            #expect(status == 0)
            let log = gateway.remainingStderr()
            #expect(log.contains("signal=\(signal) [GatewayCLI] shutting down"))
            #expect(log.contains("GET /healthz 200"))
            #expect(log.contains("gateway: [Gateway] stopped"))
            // With an origin configured, no demo origin is started.
            #expect(!log.contains("demo-origin"))
        }

        /// By default the gateway runs one loop per CPU it may use: pinned to one CPU
        /// (`taskset`, a container's cpuset), one loop, whatever the machine has.
        @Test func defaultLoopsFollowTheCPUsItMayUse() async throws {
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "GATEWAY_THREADS")
            environment.merge(Self.cacheDirectory) { _, new in new }
            environment.merge(["GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": "0", "GATEWAY_ORIGIN": "http://127.0.0.1:9"]) { _, new in new }
            let gateway = try BuiltExecutable("gateway", environment: environment, launcher: ["/usr/bin/taskset", "-c", "0"])
            let seen = Self.readUntilListening(gateway)
            #expect(seen.contains("host=127.0.0.1 loops=1 port="))
            gateway.signal(SIGTERM)
            #expect(try await gateway.waitForExit() == 0)
        }

        /// Without `--origin`, the gateway starts the demo origin on a loopback port, logs its
        /// URL, serves from it, and stops it after itself.
        @Test func withoutOriginRunsTheDemoOrigin() async throws {
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "GATEWAY_ORIGIN")
            environment.merge(Self.cacheDirectory) { _, new in new }
            let gateway = try BuiltExecutable("gateway", arguments: ["--host", "127.0.0.1", "--port", "0", "--threads", "1"], environment: environment)
            let seen = Self.readUntilListening(gateway)
            let gatewayPort = try #require(seen.firstMatch(of: Self.gatewayListening).flatMap { Int($0.1) })
            let match = try #require(seen.firstMatch(of: #/demo-origin: generation=\w+ url=http:\/\/127\.0\.0\.1:(\d+) \[DemoOrigin\] demo origin \(\w+\) listening on /#))
            let originPort = try #require(Int(match.1))
            // Where it serves, what it speaks, and where the demo origin's access lines are.
            #expect(seen.contains("[Gateway] listening on http://127.0.0.1:\(gatewayPort) (HTTP/1.1, h2c)"))
            #expect(seen.contains("[DemoOrigin] demo origin (v1) listening on http://127.0.0.1:\(originPort)"))
            #expect(seen.contains("the embedded demo origin's access lines are off (--demo-origin-access-log logs them)"))
            let page = try await offPool { try RawHTTPClient(port: originPort).request("GET", "/items/1") }
            #expect(page.status == 200)
            let items = try #require(try page.json()["items"] as? [[String: Any]])
            #expect(items.count == 20)
            #expect(items.first?["title"] as? String == "MacBook Pro")
            // A new user opens a product list, follows a thumbnail and gets the picture.
            let (thumbnail, picture) = try await offPool {
                let client = try RawHTTPClient(port: gatewayPort)
                let list = try client.request("GET", "/v1/products?page=1")
                let thumbnail = (try list.json()["items"] as? [[String: Any]])?.first?["thumbnails"] as? [String]
                let url = thumbnail?.first ?? ""
                return (url, try client.request("GET", url))
            }
            #expect(thumbnail.hasPrefix("/v1/images/"))
            #expect(picture.status == 200)
            #expect(picture.header("Content-Type") == "image/png")
            #expect(Array(picture.body.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
            gateway.signal(SIGTERM)
            #expect(try await gateway.waitForExit() == 0)
            let log = seen + gateway.remainingStderr()
            #expect(log.contains("gateway: [Gateway] stopped"))
            #expect(log.contains("demo-origin: [Gateway] stopped"))
            // The gateway's access lines, and none of the demo origin's.
            #expect(log.contains("gateway: bytes="))
            #expect(log.contains("demo-origin: bytes=") == false)
            // The demo origin stops after the gateway.
            let gatewayStopped = try #require(log.range(of: "gateway: [Gateway] stopped"))
            let originStopped = try #require(log.range(of: "demo-origin: [Gateway] stopped"))
            #expect(gatewayStopped.lowerBound < originStopped.lowerBound)
        }

        /// `GATEWAY_ORIGIN_GENERATION=v2b` without an origin: the demo origin runs as v2b,
        /// and the same contract comes out, with vendors, search and writes as its vendor.
        @Test func theDemoOriginRunsInTheChosenGeneration() async throws {
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "GATEWAY_ORIGIN")
            environment.removeValue(forKey: "GATEWAY_ORIGIN_VENDOR_IDENTIFIER")
            environment.merge(Self.cacheDirectory) { _, new in new }
            environment["GATEWAY_ORIGIN_GENERATION"] = "v2b"
            let gateway = try BuiltExecutable("gateway", arguments: ["--host", "127.0.0.1", "--port", "0", "--threads", "1"], environment: environment)
            let seen = Self.readUntilListening(gateway)
            let port = try #require(seen.firstMatch(of: Self.gatewayListening).flatMap { Int($0.1) })
            let match = try #require(seen.firstMatch(of: #/demo-origin: generation=\w+ url=http:\/\/127\.0\.0\.1:(\d+) \[DemoOrigin\] demo origin \(\w+\) listening on /#))
            let originPort = try #require(Int(match.1))
            let (origin, list, search, ready) = try await offPool {
                let client = try RawHTTPClient(port: port)
                return (
                    try RawHTTPClient(port: originPort).request("GET", "/healthChecker"),
                    try client.request("GET", "/v1/products?pageSize=3"),
                    try client.request("GET", "/v1/products?q=iphone&pageSize=2"),
                    try client.request("GET", "/readyz")
                )
            }
            #expect(origin.text == #""OK""#)
            #expect(list.status == 200)
            let items = try #require(try list.json()["items"] as? [[String: Any]])
            #expect(items.compactMap { $0["id"] as? Int } == [127, 126, 125])
            #expect((items.first?["vendor"] as? [String: Any])?["name"] as? String != nil)
            #expect(search.status == 200)
            #expect((try search.json()["items"] as? [[String: Any]])?.allSatisfy { ($0["title"] as? String)?.lowercased().contains("iphone") == true } == true)
            #expect(ready.status == 200)
            #expect(try ready.json()["origin"] as? String == "up")
            let png = Data(IntegrationTests.WritePath.png).base64EncodedString()
            let created = try await offPool {
                try RawHTTPClient(port: port).request(
                    "POST", "/v1/products", headers: ["Content-Type: application/json"],
                    body: Array(#"{"title":"t","description":"d","price":10,"currency":"KRW","stock":1,"password":"demo-secret-1","images":[{"data":"\#(png)"}]}"#.utf8))
            }
            #expect(created.status == 201)
            gateway.signal(SIGTERM)
            #expect(try await gateway.waitForExit() == 0)
            let log = seen + gateway.remainingStderr()
            // Neither the vendor identifier nor the secret reaches the log.
            #expect(!log.contains("5e1e3f0a-6a4c-11ed-a1eb-0242ac120002"))
            #expect(!log.contains("demo-secret-1"))
        }

        /// `--demo-auth`: an identity provider beside the demo origin; a token from its
        /// `/token` writes on v2 as the token's vendor with no password; no token is 401.
        @Test func demoAuthWritesWithATokenAndNoSecret() async throws {
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "GATEWAY_ORIGIN")
            environment.merge(Self.cacheDirectory) { _, new in new }
            let gateway = try BuiltExecutable(
                "gateway", arguments: ["--demo-auth", "--origin-generation", "v2", "--host", "127.0.0.1", "--port", "0", "--threads", "1"],
                environment: environment)
            let seen = Self.readUntilListening(gateway)
            let gatewayPort = try #require(seen.firstMatch(of: Self.gatewayListening).flatMap { Int($0.1) })
            let match = try #require(seen.firstMatch(of: /issuer=http:\/\/127\.0\.0\.1:(\d+) \[DemoIdentityProvider\] demo identity provider listening/))
            let providerPort = try #require(Int(match.1))
            let png = Data(IntegrationTests.WritePath.png).base64EncodedString()
            let (token, unknown) = try await offPool {
                let client = try RawHTTPClient(port: providerPort)
                let form = ["Content-Type: application/x-www-form-urlencoded"]
                let answer = try client.request("POST", "/token", headers: form, body: Array("vendor=second-shop&user=kim".utf8))
                let unknown = try client.request("POST", "/token", headers: form, body: Array("vendor=nobody".utf8))
                return (try answer.json()["access_token"] as? String, unknown)
            }
            #expect(unknown.status == 400)
            #expect(unknown.text == #"{"error":"invalid_request","error_description":"vendor must be one of: demo-market, second-shop."}"#)
            let bearer = try #require(token)
            let (created, anonymous) = try await offPool {
                let client = try RawHTTPClient(port: gatewayPort)
                let created = try client.request(
                    "POST", "/v1/products", headers: ["Content-Type: application/json", "Authorization: Bearer \(bearer)"],
                    body: Array(#"{"title":"lamp","description":"with a token","price":100,"currency":"KRW","stock":1,"images":[{"data":"\#(png)"}]}"#.utf8))
                return (created, try client.request("DELETE", "/v1/products/5"))
            }
            #expect(created.status == 201)
            #expect(Generations.vendor(try created.json()["vendor"]) == "2:Second Shop")
            #expect(anonymous.status == 401)
            gateway.signal(SIGTERM)
            #expect(try await gateway.waitForExit() == 0)
            let log = seen + gateway.remainingStderr()
            #expect(log.contains("user=kim [Gateway] POST /v1/products 201"))
            #expect(!log.contains(bearer) && !log.contains(DemoVendor.demo[1].secret))
        }

        @Test func refusesBadConfigurationWithAMessage() async throws {
            let gateway = try BuiltExecutable("gateway", arguments: ["--threads", "0"])
            #expect(try await gateway.waitForExit() != 0)
            let message = gateway.remainingStderr()
            #expect(message.contains("--threads must be 1 to 256."))
        }
    }
}
