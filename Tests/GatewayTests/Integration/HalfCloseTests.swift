import Foundation
import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests {
    /// A client that sends its requests and then half-closes (`shutdown(SHUT_WR)`, as
    /// `nc -N` and many HTTP/1.0 clients do) still gets every answer whole.
    @Suite struct HalfClose {
        @Test func answersBufferedRequestsAndLargeAnswersAfterEndOfStream() async throws {
            // An output bound above the answer, so the server keeps reading (and sees the end
            // of stream) while most of the answer is still queued.
            try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: { $0.maxOutputBytes = 32 << 20 }) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port, timeout: 10, receiveBufferBytes: 8192)
                    try client.send(
                        "GET /big?size=16000000 HTTP/1.1\r\nHost: x\r\n\r\nGET /async HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    client.finishSending()
                    // Reading starts late: the big answer waits in the server's queue.
                    Thread.sleep(forTimeInterval: 0.3)
                    let big = try client.readResponse()
                    #expect(big.status == 200)
                    #expect(big.body.count == 16_000_000)
                    #expect(big.body == TestRoutes.jsonBody(size: 16_000_000))
                    #expect(try client.readResponse().text == #"{"async":true}"#)
                    #expect(try client.readResponse().text == #"{"status":"ok"}"#)
                    #expect(client.isClosedByPeer())
                }
            }
        }

        /// A half-closed connection whose answer waits for a slow reader does not keep the
        /// loop busy: the process uses almost no CPU while it waits.
        @Test func aWaitingHalfClosedConnectionDoesNotSpin() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port, timeout: 10, receiveBufferBytes: 4096)
                    try client.send("GET /big?size=4000000 HTTP/1.0\r\n\r\n")
                    client.finishSending()
                    Thread.sleep(forTimeInterval: 0.3)
                    // The loop's own thread: other tests run beside this one in the process.
                    let before = Self.cpuSeconds(threads: server.server.loopKernelThreadIDs)
                    Thread.sleep(forTimeInterval: 1)
                    let used = Self.cpuSeconds(threads: server.server.loopKernelThreadIDs) - before
                    #expect(used < 0.5, "the loop used \(used) s of CPU in 1 s while waiting")
                    let response = try client.readResponse()
                    #expect(response.body.count == 4_000_000)
                }
            }
        }

        /// User plus system CPU time of these threads of this process, from `/proc/self/task`.
        static func cpuSeconds(threads: [Int32]) -> Double {
            let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
            return threads.reduce(0) { total, thread in
                guard let stat = try? String(contentsOfFile: "/proc/self/task/\(thread)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return total }
                // Fields after the command name: state is field 3, utime 14 and stime 15.
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return total }
                return total + (user + system) / ticksPerSecond
            }
        }
    }
}
