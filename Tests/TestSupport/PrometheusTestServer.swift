import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real Prometheus (Debian's `prometheus` package, which `scripts/setup` installs) on a
/// free loopback port, with its data in a directory of its own, scraping what the test names
/// every second and evaluating the rule files it is given every second. Tests ask it through
/// its HTTP API (`/api/v1/query`, `/api/v1/rules`).
public final class PrometheusTestServer: @unchecked Sendable {
    public let port: Int
    private let process: Process
    private let directory: URL

    public static let path = "/usr/bin/prometheus"

    /// One scrape target: `127.0.0.1:port` as `job`, its `/metrics` read with `bearer` when given.
    public struct Target: Sendable {
        public let job: String
        public let port: Int
        public let bearer: String?

        public init(job: String, port: Int, bearer: String? = nil) {
            self.job = job
            self.port = port
            self.bearer = bearer
        }
    }

    /// Starts Prometheus scraping `targets` with `ruleFiles` loaded; waits until it is ready.
    /// - Throws: when `prometheus` is missing (run `scripts/setup`) or not ready within 20 s
    ///   (never skipped).
    public init(targets: [Target], ruleFiles: [String] = []) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.path) else {
            throw RedisTestError(description: "\(Self.path) is missing: scripts/setup installs Debian's prometheus package")
        }
        port = try freeLoopbackPort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            rule_files:\(ruleFiles.isEmpty ? " []" : "")

            """
        for file in ruleFiles { configuration += "  - \"\(file)\"\n" }
        configuration += "scrape_configs:\n"
        for target in targets {
            configuration += "  - job_name: \"\(target.job)\"\n"
            if let bearer = target.bearer { configuration += "    authorization:\n      credentials: \"\(bearer)\"\n" }
            configuration += "    static_configs:\n      - targets: [\"127.0.0.1:\(target.port)\"]\n"
        }
        let file = directory.appendingPathComponent("prometheus.yml")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        let made = Process()
        made.executableURL = URL(fileURLWithPath: Self.path)
        made.arguments = [
            "--config.file=\(file.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ]
        made.standardOutput = FileHandle.nullDevice
        made.standardError = FileHandle.nullDevice
        try made.run()
        process = made
        for _ in 0..<2000 {
            if (try? RawHTTPClient(port: port, timeout: 1).request("GET", "/-/ready").status) == 200 { return }
            usleep(10_000)
        }
        stop()
        throw RedisTestError(description: "prometheus on port \(port) was not ready within 20 s")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The instant vector `expression` evaluates to now: each series' labels and value.
    /// - Throws: when Prometheus refuses the expression (a syntax error, an unknown function).
    public func query(_ expression: String) throws -> [(labels: [String: String], value: String)] {
        let data = try api("/api/v1/query", form: ["query": expression])
        guard data["resultType"] as? String == "vector", let result = data["result"] as? [[String: Any]] else {
            throw RedisTestError(description: "\(expression): not an instant vector: \(data)")
        }
        return result.map { series in
            let value = (series["value"] as? [Any])?.last as? String ?? ""
            return (series["metric"] as? [String: String] ?? [:], value)
        }
    }

    /// One rule as `/api/v1/rules` lists it.
    public struct Rule: Sendable {
        public let name: String
        public let query: String
        /// `ok`, `err`, or `unknown` before its first evaluation.
        public let health: String
        public let lastError: String
        /// An alert's `inactive`, `pending` or `firing`; empty for a recording rule.
        public let state: String
    }

    /// The rules Prometheus loaded, in file order.
    public func rules() throws -> [Rule] {
        let data = try api("/api/v1/rules", form: [:])
        return (data["groups"] as? [[String: Any]] ?? []).flatMap { $0["rules"] as? [[String: Any]] ?? [] }.map { rule in
            Rule(
                name: rule["name"] as? String ?? "", query: rule["query"] as? String ?? "", health: rule["health"] as? String ?? "",
                lastError: rule["lastError"] as? String ?? "", state: rule["state"] as? String ?? "")
        }
    }

    /// The targets' scrape health: `job` to `health` (`up`, `down`, `unknown`).
    public func targetHealth() throws -> [String: String] {
        let data = try api("/api/v1/targets", form: [:])
        var health: [String: String] = [:]
        for target in data["activeTargets"] as? [[String: Any]] ?? [] {
            if let job = (target["labels"] as? [String: String])?["job"] { health[job] = target["health"] as? String }
        }
        return health
    }

    private func api(_ path: String, form: [String: String]) throws -> [String: Any] {
        let client = try RawHTTPClient(port: port)
        defer { client.close() }
        let response: RawHTTPClient.Response
        if form.isEmpty {
            response = try client.request("GET", path)
        } else {
            let body = form.map { "\($0.key)=\(Self.formEncoded($0.value))" }.joined(separator: "&")
            response = try client.request("POST", path, headers: ["Content-Type: application/x-www-form-urlencoded"], body: Array(body.utf8))
        }
        let object = try response.json()
        guard object["status"] as? String == "success", let data = object["data"] as? [String: Any] else {
            throw RedisTestError(description: "prometheus \(path) \(form): \(response.status) \(response.text)")
        }
        return data
    }

    /// Every byte but letters and digits percent-encoded (so `+` is not read as a space).
    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
