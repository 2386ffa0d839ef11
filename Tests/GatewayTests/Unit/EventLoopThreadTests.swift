import Foundation
import Testing

@testable import Transport

#if canImport(Glibc)
import Glibc
#endif

/// A loop's thread as the kernel shows it: named (`top -H`, `/proc/PID/task/TID/comm`), and
/// under the scheduling policy it was made with (the trace exporter's loop takes only what the
/// request loops leave).
@Suite struct EventLoopThreadTests {
    /// The loop thread's name and scheduling policy, read on the loop itself.
    private func threadOf(_ loop: EventLoop) async -> (name: String, policy: Int32) {
        loop.start()
        defer {
            loop.stop()
            loop.join()
        }
        return await withCheckedContinuation { continuation in
            loop.post {
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                // 0: on Linux, the calling thread.
                continuation.resume(returning: (name.trimmingCharacters(in: .newlines), sched_getscheduler(0)))
            }
        }
    }

    @Test func aBackgroundLoopsThreadIsNamedAndRunsUnderSchedIdle() async throws {
        let background = try EventLoop(name: "tracing-test-loop-long-name", priority: .idle)
        let thread = await threadOf(background)
        #expect(thread.name == "tracing-test-lo")
        #expect(thread.policy == EventLoop.schedIdle)
    }

    @Test func aRequestLoopKeepsTheOrdinaryPolicy() async throws {
        let loop = try EventLoop(name: "gateway-loop-9")
        let thread = await threadOf(loop)
        #expect(thread.name == "gateway-loop-9")
        #expect(thread.policy == SCHED_OTHER)
    }
}
