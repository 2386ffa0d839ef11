import Foundation
import Testing
import TestSupport

extension IntegrationTests {
    /// The dashboard and the alert rules the repository ships (`deploy/`), against a real
    /// Prometheus scraping a real gateway under traffic: every panel's query and every rule's
    /// expression must return series, so no metric name in them is mistyped or missing.
    /// (`promtool test rules` proves what the alerts do; scripts/check-monitoring runs it.)
    @Suite struct Monitoring {
        /// The package's root, from this file's place in it.
        static let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

        static let job = "open-market-gateway"
        static let adminToken = "monitoring-admin-token-0123456789"

        /// Every query of the dashboard (panel title, expression), with Grafana's variables
        /// as a user of it picks them: this job, every instance, a 30 s rate window; and the
        /// metric its `job` variable lists the jobs of.
        static func dashboardQueries() throws -> [(title: String, expression: String)] {
            let file = root.appendingPathComponent("deploy/grafana/open-market-gateway.json")
            let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            let panels = try #require(dashboard["panels"] as? [[String: Any]])
            var queries: [(String, String)] = []
            for panel in panels {
                for target in panel["targets"] as? [[String: Any]] ?? [] {
                    let expression = try #require(target["expr"] as? String)
                    let substituted = expression.replacingOccurrences(of: "$__rate_interval", with: "30s")
                        .replacingOccurrences(of: "$job", with: job).replacingOccurrences(of: "$instance", with: ".*")
                    queries.append((panel["title"] as? String ?? "?", substituted))
                }
            }
            let variables = try #require((dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]])
            for variable in variables where variable["type"] as? String == "query" {
                let definition = try #require(variable["definition"] as? String)
                // label_values(METRIC, LABEL): the metric must have series with the label.
                let match = try #require(definition.firstMatch(of: /label_values\((.+), (\w+)\)$/))
                let metric = String(match.1).replacingOccurrences(of: "$job", with: job)
                queries.append(("variable \(variable["name"] ?? "?")", "count by (\(match.2)) (\(metric))"))
            }
            return queries
        }

        /// `expression` with each comparison made a `bool` one (`x > 0.05` becomes
        /// `x > bool 0.05`): it then returns its series with 0 or 1 instead of filtering them
        /// out, so a healthy gateway's alert expressions can be checked for series too.
        /// Label matchers (`{status=~"5..", outcome!="200"}`) and strings are left alone.
        static func comparisonsAsBool(_ expression: String) -> String {
            let characters = Array(expression)
            var result = ""
            var braces = 0
            var quote: Character?
            var index = 0
            while index < characters.count {
                let character = characters[index]
                if let open = quote {
                    result.append(character)
                    if character == "\\", index + 1 < characters.count {
                        result.append(characters[index + 1])
                        index += 2
                        continue
                    }
                    if character == open { quote = nil }
                    index += 1
                    continue
                }
                switch character {
                case "\"", "'", "`": quote = character
                case "{": braces += 1
                case "}": braces -= 1
                default: break
                }
                if braces == 0 {
                    let pair = index + 1 < characters.count ? String(characters[index...index + 1]) : ""
                    if ["==", "!=", ">=", "<="].contains(pair) {
                        result += pair + " bool"
                        index += 2
                        continue
                    }
                    if character == ">" || character == "<" {
                        result += "\(character) bool"
                        index += 1
                        continue
                    }
                }
                result.append(character)
                index += 1
            }
            return result
        }

        @Test func comparisonsBecomeBoolOnesOutsideMatchers() {
            #expect(Self.comparisonsAsBool(#"sum(rate(x{status=~"5..", a!="b"}[5m])) / sum(y) > 0.05"#)
                == #"sum(rate(x{status=~"5..", a!="b"}[5m])) / sum(y) > bool 0.05"#)
            #expect(Self.comparisonsAsBool("(a) > 14.4 * 0.01 and (b) >= 1 and c == 2 and d != 3 and e <= 4 and f < 5")
                == "(a) > bool 14.4 * 0.01 and (b) >= bool 1 and c == bool 2 and d != bool 3 and e <= bool 4 and f < bool 5")
        }

        /// A gateway as an operator runs one (the binary; Redis, sign-in, rate limits, tracing,
        /// `/metrics` on the admin listener), traffic of each kind through it (a list with
        /// placeholders, an image, a detail, a 404, a signed-in write, a write refused with
        /// 429), and Prometheus scraping it every second with `deploy/prometheus/alerts.yml`
        /// loaded: every dashboard query and every rule finds series, the rules evaluate
        /// without error, and the alerts whose condition is plainly false stay inactive.
        @Test func everyDashboardQueryAndAlertRuleFindsItsSeries() async throws {
            let redis = try RedisTestServer()
            let adminPort = try freeLoopbackPort()
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "GATEWAY_ORIGIN")
            environment.merge(Executable.cacheDirectory) { _, new in new }
            let gateway = try BuiltExecutable(
                "gateway",
                arguments: [
                    "--demo-auth", "--origin-generation", "v2", "--host", "127.0.0.1", "--port", "0", "--threads", "1",
                    "--admin-port", "\(adminPort)", "--admin-token", Self.adminToken, "--metrics-on-admin",
                    "--redis-url", redis.url, "--image-signing-key", "monitoring-test-signing-key",
                    "--rate-limit-writes", "2/h",
                    // A collector nobody listens on, sampling nothing: the exporter's counters show.
                    "--tracing-endpoint", "http://127.0.0.1:9/v1/traces", "--tracing-sampler", "always_off",
                ],
                environment: environment)
            defer { if gateway.process.isRunning { gateway.signal(SIGKILL) } }
            let seen = Executable.readUntilListening(gateway)
            let port = try #require(seen.firstMatch(of: Executable.gatewayListening).flatMap { Int($0.1) }, "\(seen)")
            let issuer = try #require(seen.firstMatch(of: /issuer=http:\/\/127\.0\.0\.1:(\d+) \[DemoIdentityProvider\]/).flatMap { Int($0.1) })
            let rules = Self.root.appendingPathComponent("deploy/prometheus/alerts.yml").path
            let prometheus = try PrometheusTestServer(
                targets: [.init(job: Self.job, port: adminPort, bearer: Self.adminToken)], ruleFiles: [rules])

            let png = Data(IntegrationTests.WritePath.png).base64EncodedString()
            let statuses = try await offPool { () -> [String: Int] in
                let client = try RawHTTPClient(port: port)
                var statuses: [String: Int] = [:]
                let list = try client.request("GET", "/v1/products?include=placeholders")
                statuses["list"] = list.status
                let image = try #require(list.text.firstMatch(of: /"(\/v1\/images\/[^"]+)"/).map { String($0.1) })
                statuses["image"] = try client.request("GET", image, headers: ["Accept: image/webp"]).status
                statuses["detail"] = try client.request("GET", "/v1/products/1").status
                statuses["again"] = try client.request("GET", "/v1/products?include=placeholders").status
                statuses["unknown"] = try client.request("GET", "/v1/nothing-here").status
                let provider = try RawHTTPClient(port: issuer)
                let grant = try provider.request(
                    "POST", "/token", headers: ["Content-Type: application/x-www-form-urlencoded"], body: Array("vendor=second-shop&user=kim".utf8))
                let token = try #require(try grant.json()["access_token"] as? String)
                statuses["create"] = try client.request(
                    "POST", "/v1/products", headers: ["Content-Type: application/json", "Authorization: Bearer \(token)"],
                    body: Array(#"{"title":"lamp","description":"watched","price":100,"currency":"KRW","stock":1,"images":[{"data":"\#(png)"}]}"#.utf8)).status
                statuses["anonymous delete"] = try client.request("DELETE", "/v1/products/5").status
                statuses["delete over budget"] = try client.request("DELETE", "/v1/products/5").status
                return statuses
            }
            #expect(statuses == [
                "list": 200, "image": 200, "detail": 200, "again": 200, "unknown": 404, "create": 201, "anonymous delete": 401,
                "delete over budget": 429,
            ])

            // Every panel's query returns series once Prometheus has scraped the traffic twice.
            let queries = try Self.dashboardQueries()
            #expect(queries.count >= 40)
            var empty: [String] = []
            let panelsFound = try await poll(every: .milliseconds(250), for: .seconds(60)) {
                empty = try await offPool { try queries.filter { try prometheus.query($0.expression).isEmpty }.map { "\($0.title): \($0.expression)" } }
                return empty.isEmpty
            }
            #expect(panelsFound, "dashboard queries without series:\n\(empty.joined(separator: "\n"))")

            // What the traffic did, as Prometheus read it.
            let selector = #"job="\#(Self.job)""#
            #expect(try prometheus.query(#"sum(gateway_rate_limited_total{\#(selector), policy="writes"})"#).map(\.value) == ["1"])
            #expect(try prometheus.query(#"sum(gateway_http_requests_total{\#(selector), status="201"})"#).map(\.value) == ["1"])
            #expect(try prometheus.query(#"gateway_redis_up{\#(selector)}"#).map(\.value) == ["1"])
            #expect(try prometheus.query(#"gateway_auth_key_set_stale{\#(selector)}"#).map(\.value) == ["0"])
            #expect(try prometheus.query(#"gateway_origin_breaker_state{\#(selector)}"#).map(\.value) == ["0"])
            #expect(try prometheus.query(#"sum(gateway_auth_tokens_total{\#(selector), outcome="verified"})"#).map(\.value) == ["1"])

            // Every rule loaded, evaluated without error, and finds series.
            var loaded: [PrometheusTestServer.Rule] = []
            let evaluated = try await poll(every: .milliseconds(250), for: .seconds(30)) {
                loaded = try await offPool { try prometheus.rules() }
                return !loaded.isEmpty && loaded.allSatisfy { $0.health == "ok" }
            }
            #expect(evaluated, "rules not evaluated cleanly: \(loaded.map { "\($0.name): \($0.health) \($0.lastError)" })")
            #expect(Set(loaded.map(\.name)) == [
                "OpenMarketGatewayOriginBreakerOpen", "OpenMarketGatewayServerErrors", "OpenMarketGatewayLatencyBudgetBurn",
                "OpenMarketGatewayRedisDown", "OpenMarketGatewayAuthKeySetStale", "OpenMarketGatewayImageHostBreakerOpen",
                "OpenMarketGatewayLogLinesDropped",
            ])
            #expect(loaded.count == 8)
            for rule in loaded {
                let series = try await offPool { try prometheus.query(Self.comparisonsAsBool(rule.query)) }
                #expect(!series.isEmpty, "\(rule.name) finds no series: \(rule.query)")
            }
            let quiet: Set = [
                "OpenMarketGatewayOriginBreakerOpen", "OpenMarketGatewayRedisDown", "OpenMarketGatewayAuthKeySetStale",
                "OpenMarketGatewayImageHostBreakerOpen", "OpenMarketGatewayLogLinesDropped", "OpenMarketGatewayServerErrors",
            ]
            for rule in loaded where quiet.contains(rule.name) {
                #expect(rule.state == "inactive", "\(rule.name) is \(rule.state)")
            }

            gateway.signal(SIGTERM)
            #expect(try await gateway.waitForExit() == 0)
        }
    }
}
