import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` (Debian's, which `scripts/setup` installs) on a free loopback port,
/// with nothing saved to disk, for one test. `redis-cli` talks to it (on the plain port).
public final class RedisTestServer: @unchecked Sendable {
    public let port: Int
    public let password: String?
    /// With TLS: the port that speaks it (beside the plain `port`).
    public let tlsPort: Int?
    private let tls: TLS?
    /// A replica's primary (its port on 127.0.0.1).
    private let replicaOf: Int?
    private var process: Process?

    /// What the server's TLS port presents and asks for (PEM files).
    public struct TLS: Sendable {
        public var certificateFile: String
        public var keyFile: String
        /// The CAs that sign client certificates (redis-server wants one even when it asks
        /// for none).
        public var caFile: String
        /// Whether a client must present a certificate (`--tls-auth-clients yes`).
        public var requiresClientCertificate: Bool

        public init(certificateFile: String, keyFile: String, caFile: String, requiresClientCertificate: Bool = false) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.caFile = caFile
            self.requiresClientCertificate = requiresClientCertificate
        }
    }

    /// Starts a server; waits until it answers `PING`.
    /// - Throws: when `redis-server` is missing or does not answer within 5 s (never skipped:
    ///   the replica tests need it).
    /// - Parameter replicaOf: makes this server a replica of the one on that port (no password).
    public init(password: String? = nil, tls: TLS? = nil, replicaOf: Int? = nil) throws {
        port = try freeLoopbackPort()
        tlsPort = tls == nil ? nil : try freeLoopbackPort()
        self.password = password
        self.tls = tls
        self.replicaOf = replicaOf
        try start()
    }

    deinit { stop() }

    public static let serverPath = "/usr/bin/redis-server"
    public static let cliPath = "/usr/bin/redis-cli"

    /// `redis://[:password@]127.0.0.1:port`.
    public var url: String {
        "redis://" + (password.map { ":\($0)@" } ?? "") + "127.0.0.1:\(port)"
    }

    /// Starts the server again on the same port (after `stop`).
    public func start() throws {
        guard process == nil else { return }
        let made = Process()
        made.executableURL = URL(fileURLWithPath: Self.serverPath)
        made.arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--dir", FileManager.default.temporaryDirectory.path, "--loglevel", "warning"]
            + (password.map { ["--requirepass", $0] } ?? [])
        if let replicaOf { made.arguments! += ["--replicaof", "127.0.0.1", "\(replicaOf)"] }
        if let tls, let tlsPort {
            made.arguments! += [
                "--tls-port", "\(tlsPort)", "--tls-cert-file", tls.certificateFile, "--tls-key-file", tls.keyFile,
                "--tls-ca-cert-file", tls.caFile, "--tls-auth-clients", tls.requiresClientCertificate ? "yes" : "no",
            ]
        }
        made.standardOutput = FileHandle.nullDevice
        made.standardError = FileHandle.nullDevice
        try made.run()
        process = made
        if Self.waitForPong({ try? cli("PING") }) { return }
        stop()
        throw RedisTestError(description: "redis-server on port \(port) did not answer PING within 5 s")
    }

    /// Stops the server (SIGKILL: as a crash looks to clients) and waits for it to end.
    public func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Freezes the server (SIGSTOP): connections stay open and nothing answers, as with a
    /// hung process or a dropped route.
    public func pause() {
        if let process { kill(process.processIdentifier, SIGSTOP) }
    }

    /// Thaws a frozen server (SIGCONT).
    public func resume() {
        if let process { kill(process.processIdentifier, SIGCONT) }
    }

    /// Runs `redis-cli` with `arguments` against this server; its output, trimmed.
    @discardableResult
    public func cli(_ arguments: String...) throws -> String {
        try cli(arguments)
    }

    public func cli(_ arguments: [String]) throws -> String {
        try Self.cli(port: port, password: password, arguments)
    }

    /// Runs `redis-cli` against 127.0.0.1:`port` (with `password`, and `options` such as
    /// `--tls` before the command); its output, trimmed.
    static func cli(port: Int, password: String?, options: [String] = [], _ arguments: [String]) throws -> String {
        let made = Process()
        made.executableURL = URL(fileURLWithPath: cliPath)
        made.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "--no-auth-warning"] + (password.map { ["-a", $0] } ?? []) + options + arguments
        let output = Pipe()
        made.standardOutput = output
        made.standardError = FileHandle.nullDevice
        try made.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        made.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls `answers` every 10 ms until it says `PONG`, for up to 5 s; whether it did.
    static func waitForPong(_ answers: () -> String?) -> Bool {
        for _ in 0..<500 {
            if answers() == "PONG" { return true }
            usleep(10_000)
        }
        return false
    }
}

public struct RedisTestError: Error, CustomStringConvertible {
    public let description: String
}
