import CEvent
import Glibc

/// Process-wide libevent set-up, done once before the first event_base exists.
enum LibeventRuntime {
    /// Call before creating any event_base. Idempotent and thread-safe (a global `let` is
    /// initialised once).
    static func prepare() { _ = prepared }

    private static let prepared: Bool = {
        // event2/thread.h: threading "must be set up before an event_base is created".
        // With it, event_active may be called on a base from any thread (EventLoop.post).
        let status = evthread_use_pthreads()
        precondition(status == 0, "evthread_use_pthreads failed")
        // A client that closes while we write must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        return true
    }()
}
