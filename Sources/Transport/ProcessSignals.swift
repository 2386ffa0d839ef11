import CEvent
import Glibc

/// The process's signals, handled by a small libevent loop of its own on the thread that
/// waits (the main thread), so signal handling stays inside libevent (only one base may own a
/// signal; the server's loops own none): SIGTERM and SIGINT stop the process, SIGHUP reloads
/// its files.
public enum ProcessSignals {
    /// What made a reload happen.
    public enum ReloadTrigger: String, Sendable {
        /// SIGHUP.
        case signal
        /// The periodic check of `wait(reloadEvery:reload:)`.
        case interval
    }

    /// Blocks SIGTERM, SIGINT and SIGHUP on the calling thread, and so on every thread it
    /// starts afterwards (threads inherit the mask): call it first thing in `main`. `wait`
    /// unblocks them on its own thread only, so no loop or worker thread is interrupted, and a
    /// signal sent before `wait` runs stays pending until then instead of killing the process.
    public static func blockOnThisThreadAndItsChildren() {
        var set = signalSet([SIGTERM, SIGINT, SIGHUP])
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Blocks until SIGTERM or SIGINT arrives and returns its number. With `reload`, SIGHUP
    /// calls it with `.signal`, and, with `interval`, every `interval` with `.interval`; both
    /// on this thread, one at a time. Without `reload`, SIGHUP is left as it was.
    ///
    /// A process inherits its blocked signals across exec, and some parents (test runners,
    /// supervisors) block these; the waiting thread unblocks them for itself once its handlers
    /// are in place, so a pending signal is handled here, not by the default action.
    public static func wait(reloadEvery interval: Duration? = nil, reload: ((ReloadTrigger) -> Void)? = nil) -> Int32 {
        LibeventRuntime.prepare()
        guard let base = event_base_new() else { fatalError("event_base_new failed") }
        defer { event_base_free(base) }
        let box = SignalBox(base: base, reload: reload)
        // Unmanaged: passUnretained. `box` outlives every event, all freed below before this
        // function returns.
        let context = Unmanaged.passUnretained(box).toOpaque()
        var events = [SIGTERM, SIGINT].compactMap { number in
            event_new(base, number, Int16(EV_SIGNAL | EV_PERSIST), processSignalCallback, context)
        }
        if reload != nil, let hangup = event_new(base, SIGHUP, Int16(EV_SIGNAL | EV_PERSIST), processSignalCallback, context) {
            events.append(hangup)
        }
        defer { events.forEach { event_free($0) } }
        for event in events { event_add(event, nil) }
        var timer: OpaquePointer?
        if reload != nil, let interval, interval > .zero, let made = event_new(base, -1, Int16(EV_PERSIST), reloadTimerCallback, context) {
            timer = made
            var period = timeval(interval)
            event_add(made, &period)
        }
        defer { timer.map { event_free($0) } }
        var unblock = signalSet(reload == nil ? [SIGTERM, SIGINT] : [SIGTERM, SIGINT, SIGHUP])
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        event_base_dispatch(base)
        return box.signal
    }

    private static func signalSet(_ numbers: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        return set
    }
}

/// The waiting thread's state, used by the callbacks on that thread only.
private final class SignalBox {
    let base: OpaquePointer
    let reload: ((ProcessSignals.ReloadTrigger) -> Void)?
    var signal: Int32 = 0
    init(base: OpaquePointer, reload: ((ProcessSignals.ReloadTrigger) -> Void)?) {
        self.base = base
        self.reload = reload
    }
}

/// On the waiting thread, from `ProcessSignals.wait`'s loop.
private func processSignalCallback(_ number: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let box = Unmanaged<SignalBox>.fromOpaque(context!).takeUnretainedValue()
    if number == SIGHUP {
        box.reload?(.signal)
        return
    }
    box.signal = number
    event_base_loopbreak(box.base)
}

/// On the waiting thread, every reload interval.
private func reloadTimerCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let box = Unmanaged<SignalBox>.fromOpaque(context!).takeUnretainedValue()
    box.reload?(.interval)
}
