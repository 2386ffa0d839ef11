import Foundation
import Testing

@testable import Transport

#if canImport(Glibc)
import Glibc
#endif

/// A loop's thread as the kernel shows it: named (`top -H`, `/proc/PID/task/TID/comm`), and
/// at the nice value it was made with (the trace exporter's loop yields to the request loops).
@Suite struct EventLoopThreadTests {
    /// The loop thread's name and nice value, read on the loop itself.
    private func threadOf(_ loop: EventLoop) async -> (name: String, nice: Int32) {
        loop.start()
        defer {
            loop.stop()
            loop.join()
        }
        return await withCheckedContinuation { continuation in
            loop.post {
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                errno = 0
                // `who` 0: on Linux, the calling thread.
                let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                continuation.resume(returning: (name.trimmingCharacters(in: .newlines), nice))
            }
        }
    }

    @Test func aLoopsThreadIsNamedAndRunsAtItsNiceValue() async throws {
        let background = try EventLoop(name: "tracing-test-loop-long-name", niceness: 7)
        let thread = await threadOf(background)
        #expect(thread.name == "tracing-test-lo")
        #expect(thread.nice == getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) + 7)
    }

    @Test func aRequestLoopKeepsTheProcesssNiceValue() async throws {
        let loop = try EventLoop(name: "gateway-loop-9")
        let thread = await threadOf(loop)
        #expect(thread.name == "gateway-loop-9")
        #expect(thread.nice == getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
    }
}
