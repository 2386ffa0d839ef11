import CLibevent
import Glibc

/// Waits for SIGTERM or SIGINT with a small libevent loop of its own on the calling thread,
/// so the process's signal handling stays inside libevent (only one base may own a signal;
/// the server's loops own none).
public enum TerminationSignal {
    /// Blocks until SIGTERM or SIGINT arrives and returns its number.
    ///
    /// A process inherits its blocked signals across exec, and some parents (test runners,
    /// supervisors) block these two; the waiting thread unblocks them for itself, so the
    /// signal is delivered here whatever the parent did.
    public static func wait() -> Int32 {
        LibeventRuntime.prepare()
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGTERM)
        sigaddset(&unblock, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        guard let base = event_base_new() else { fatalError("event_base_new failed") }
        defer { event_base_free(base) }
        let received = SignalBox(base: base)
        // Unmanaged: passUnretained. `received` outlives both events, which are freed below
        // before this function returns.
        let context = Unmanaged.passUnretained(received).toOpaque()
        let events = [SIGTERM, SIGINT].compactMap { number in
            event_new(base, number, Int16(EV_SIGNAL), terminationSignalCallback, context)
        }
        defer { events.forEach { event_free($0) } }
        for event in events { event_add(event, nil) }
        event_base_dispatch(base)
        return received.signal
    }
}

/// The signal's number, written on the waiting thread by the callback.
private final class SignalBox {
    let base: OpaquePointer
    var signal: Int32 = 0
    init(base: OpaquePointer) { self.base = base }
}

/// On the waiting thread, from `TerminationSignal.wait`'s loop.
private func terminationSignalCallback(_ number: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let box = Unmanaged<SignalBox>.fromOpaque(context!).takeUnretainedValue()
    box.signal = number
    event_base_loopbreak(box.base)
}
