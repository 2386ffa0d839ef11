import Foundation

/// Debian's `redis-server` (which the repository's `scripts/setup` installs) on a loopback
/// port, saving nothing, for the tests that need replicas sharing state. Killed when released.
final class RedisProcess: @unchecked Sendable {
    private let process: Process
    let port: Int

    /// `redis://127.0.0.1:PORT`.
    var url: String { "redis://127.0.0.1:\(port)" }

    /// Tries random ports in 20000–59999 until a server stays up and answers `PING`.
    /// - Throws: ``TestFailure`` when `redis-server` is missing or five ports fail.
    init() throws {
        (process, port) = try Self.start()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    private static func start() throws -> (Process, Int) {
        let server = URL(fileURLWithPath: "/usr/bin/redis-server")
        guard FileManager.default.isExecutableFile(atPath: server.path) else {
            throw TestFailure("no \(server.path): run the repository's scripts/setup")
        }
        for _ in 0..<5 {
            let port = Int.random(in: 20_000..<60_000)
            let attempt = Process()
            attempt.executableURL = server
            attempt.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            attempt.standardOutput = FileHandle.nullDevice
            attempt.standardError = FileHandle.nullDevice
            try attempt.run()
            for _ in 0..<100 where attempt.isRunning {
                if try ping(port: port) { return (attempt, port) }
                Thread.sleep(forTimeInterval: 0.02)
            }
            if attempt.isRunning { attempt.terminate(); attempt.waitUntilExit() }
        }
        throw TestFailure("redis-server did not start on any of five ports")
    }

    /// Whether `redis-cli` gets `PONG` from a server on `port`.
    private static func ping(port: Int) throws -> Bool {
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        cli.arguments = ["-h", "127.0.0.1", "-p", String(port), "PING"]
        let output = Pipe()
        cli.standardOutput = output
        cli.standardError = FileHandle.nullDevice
        try cli.run()
        let reply = output.fileHandleForReading.readDataToEndOfFile()
        cli.waitUntilExit()
        return String(decoding: reply, as: UTF8.self).hasPrefix("PONG")
    }
}
