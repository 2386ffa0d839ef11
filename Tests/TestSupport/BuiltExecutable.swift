import Foundation

/// An executable `swift build` put beside the test bundle (`gateway`, `demo-origin`), run as
/// a child process with its stderr captured.
public struct BuiltExecutable: @unchecked Sendable {
    public let process: Process
    public let stderr: Pipe
    private let exited = DispatchSemaphore(value: 0)

    /// The product `name` in the build directory of the running tests.
    public static func url(named name: String) -> URL {
        let testBundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBundle.deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent(name)
    }

    /// Starts product `name` with `arguments`, and `environment` when given (else the tests' own).
    /// With a `launcher` (`["/usr/bin/prlimit", "--nofile=64:64"]`, say), that command runs
    /// and is given the product's path and `arguments`; it must exec the product.
    public init(_ name: String, arguments: [String] = [], environment: [String: String]? = nil, launcher: [String] = []) throws {
        process = Process()
        if let command = launcher.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = launcher.dropFirst() + [Self.url(named: name).path] + arguments
        } else {
            process.executableURL = Self.url(named: name)
            process.arguments = arguments
        }
        if let environment { process.environment = environment }
        stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    /// stderr from now until `done` holds for what was read (or stderr ends).
    public func readStderr(until done: (String) -> Bool) -> String {
        var seen = ""
        while !done(seen) {
            let data = stderr.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        return seen
    }

    /// The rest of stderr, once the process has closed it.
    public func remainingStderr() -> String {
        String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits (off the Swift concurrency pool) for the exit, up to 30 s, then terminates the
    /// process; returns its status. Not `waitUntilExit`: on Linux it spins a run loop at full CPU.
    public func waitForExit() async throws -> Int32 {
        let process = process
        let exited = exited
        return try await offPool { () -> Int32 in
            if exited.wait(timeout: .now() + 30) == .timedOut { process.terminate() }
            return process.terminationStatus
        }
    }
}
