import Foundation
import Glibc
import TestSupport

/// An HTTPS client for tests: `openssl s_client` makes one TLS connection to the server and
/// verifies its certificate, and the test speaks plain HTTP to it over a socket pair with a
/// `RawHTTPClient`. Everything sent through `client` goes over that one TLS connection.
final class TLSBridge: @unchecked Sendable {
    let client: RawHTTPClient
    let process: Process
    let stderr = Pipe()
    private let exited = DispatchSemaphore(value: 0)

    /// Connects to 127.0.0.1:`port`, trusting only `caFile`, which must name 127.0.0.1.
    init(port: Int, caFile: String, timeout: Double = 10) throws {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw RawHTTPClient.ClientError(description: "socketpair failed: \(String(cString: strerror(errno)))")
        }
        let theirs = FileHandle(fileDescriptor: pair[1], closeOnDealloc: true)
        client = RawHTTPClient(connectedSocket: pair[0], timeout: timeout)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "s_client", "-quiet", "-connect", "127.0.0.1:\(port)", "-CAfile", caFile, "-verify_ip", "127.0.0.1",
            "-verify_return_error",
        ]
        process.standardInput = theirs
        process.standardOutput = theirs
        process.standardError = stderr
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Only s_client holds the other end now: its exit is the end of the stream here.
        try theirs.close()
    }

    /// Waits up to `seconds` for s_client to end (it ends when the server closes); its
    /// exit status, or nil when it was still running (it is then terminated).
    func waitForExit(seconds: Double = 10) -> Int32? {
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
