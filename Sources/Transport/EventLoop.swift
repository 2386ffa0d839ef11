import CEvent
import Dispatch
import Foundation
import HTTPInterface
import Synchronization
import GatewaySupport

/// One libevent `event_base` and the dedicated thread that runs it.
///
/// Invariant: `base` and every libevent object created on it (connections, events, the
/// origin client's evhttp connections) are used only on this loop's thread once `start()`
/// has been called; before that, only the thread that created the loop sets it up. Other threads hand work over with `post`.
public final class EventLoop: @unchecked Sendable {
    /// Owned by this loop; freed in deinit after the thread has ended.
    package let base: OpaquePointer
    /// A user event activated by `post` to wake the loop; owned by this loop.
    private var wakeEvent: OpaquePointer?
    private let inbox = Locked<[@Sendable () -> Void]>([])
    /// Scheduled jobs whose timers have not fired (released in deinit if the loop ends first).
    private let scheduled = ScheduledJobs()
    /// Set once the loop's thread has left its loop.
    private let ended = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)
    /// The kernel's id of the loop's thread while it runs (0 otherwise), for `/proc/self/task`.
    let kernelThreadID = Atomic<Int32>(0)
    private let finished = DispatchSemaphore(value: 0)
    public let name: String
    /// How the loop's thread competes for a processor.
    public let priority: Priority

    /// How a loop's thread competes for a processor with the process's other threads.
    public enum Priority: Sendable {
        /// As the process's threads do: loops that serve requests.
        case normal
        /// Only what ordinary threads leave: Linux's `SCHED_IDLE` (which needs no privilege).
        /// The kernel gives such a thread a weight of 3 against a request loop's 1,024, so it
        /// is never starved outright, and its waking up never preempts a thread that serves a
        /// request. For background work that must never slow an answer (the trace exporter).
        /// Where the policy is refused (a seccomp profile), the thread runs at nice 19 instead.
        case idle
    }

    /// - Parameters:
    ///   - name: the thread's name (`top -H`, `/proc/PID/task/TID/comm`: its first 15 bytes).
    ///   - priority: see ``Priority``.
    package init(name: String, priority: Priority = .normal) throws(TransportError) {
        LibeventRuntime.prepare()
        self.name = name
        self.priority = priority
        guard let config = event_config_new() else { throw TransportError("event_config_new failed") }
        defer { event_config_free(config) }
        // A connection's read interest pauses while a handler works, and the origin client
        // (evhttp) switches interest several times per request; the changelist folds those
        // into at most one epoll_ctl per fd per loop turn.
        event_config_set_flag(config, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
        guard let base = event_base_new_with_config(config) else { throw TransportError("event_base_new failed") }
        self.base = base
        // Unmanaged: passUnretained. The event is freed in deinit, before `self` is gone, so
        // the callback never sees a dangling pointer; nothing is retained or released.
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let event = event_new(base, -1, Int16(EV_PERSIST), eventLoopWakeCallback, context) else {
            event_base_free(base)
            throw TransportError("event_new failed")
        }
        wakeEvent = event
    }

    deinit {
        if let wakeEvent { event_free(wakeEvent) }
        // Frees the timers of jobs that never ran (without running them); then their boxes.
        event_base_free(base)
        for box in scheduled.takeAll() { Unmanaged<ScheduledJob>.fromOpaque(box).release() }
    }

    /// Starts the loop's thread. The loop runs until `stop` or `stop(after:)`.
    package func start() {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))), ordering: .releasing)
        let thread = gettid()
        kernelThreadID.store(thread, ordering: .releasing)
        Self.nameThread(name)
        if priority == .idle { Self.yieldToOrdinaryThreads(thread) }
        event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
        drainInbox()
        // Jobs whose time had not come will never run: let go of them (and of what they hold).
        ended.store(true, ordering: .releasing)
        for box in scheduled.takeAll() { Unmanaged<ScheduledJob>.fromOpaque(box).release() }
        threadID.store(0, ordering: .releasing)
        finished.signal()
    }

    /// Names the calling thread as the kernel shows it (Glibc's `pthread_setname_np` is not
    /// in Swift's Glibc module; `/proc/thread-self/comm` is what it writes). Best effort.
    private static func nameThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// `SCHED_IDLE` from `<bits/sched.h>`: Swift's Glibc module leaves out the GNU-only names.
    static let schedIdle: Int32 = 5

    /// Puts the calling thread (kernel id `thread`) under `SCHED_IDLE`, or at nice 19 where
    /// that is refused. Best effort: a thread left as it was still works.
    private static func yieldToOrdinaryThreads(_ thread: Int32) {
        var parameters = sched_param()
        parameters.sched_priority = 0
        if sched_setscheduler(thread, schedIdle, &parameters) == 0 { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(thread), 19)
    }

    /// Whether the caller is on this loop's thread.
    public var inLoop: Bool {
        threadID.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// Runs `job` on this loop's thread, soon, in the order posted. Callable from any thread,
    /// including the loop's own (the job then runs on a later turn, never re-entrantly).
    public func post(_ job: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.append(job) }
        // Safe from any thread: evthread_use_pthreads gave the base a lock.
        event_active(wakeEvent, EV_READ, 0)
    }

    /// Runs `job` now when already on the loop, otherwise posts it.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        if inLoop { job() } else { post(job) }
    }

    /// Runs `job` on this loop's thread once `delay` has passed (a libevent one-shot timer).
    /// Callable from any thread. A job still waiting when the loop ends never runs.
    public func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) {
        // A loop that has ended runs nothing more.
        guard !ended.load(ordering: .acquiring) else { return }
        // Unmanaged: passRetained here, released by the callback, which runs exactly once,
        // or, when the loop ends first, as it ends (the job never runs): `scheduled` knows
        // which boxes are still out. A job's closure often holds the application; one left
        // for ever would keep a stopped server's caches, files and loops alive.
        let box = Unmanaged.passRetained(ScheduledJob(job, registry: scheduled)).toOpaque()
        scheduled.insert(box)
        var tv = timeval(delay)
        if event_base_once(base, -1, Int16(EV_TIMEOUT), eventLoopScheduledCallback, box, &tv) != 0 {
            scheduled.remove(box)
            Unmanaged<ScheduledJob>.fromOpaque(box).release()
            post(job)
        }
    }

    /// Called on the loop thread by the wake event.
    fileprivate func drainInbox() {
        let jobs = inbox.withLock { jobs in
            let taken = jobs
            jobs.removeAll(keepingCapacity: true)
            return taken
        }
        for job in jobs { job() }
    }

    /// Ends the loop after `delay`, letting written replies flush meanwhile.
    package func stop(after delay: Duration = .zero) {
        post { [self] in
            var tv = timeval(delay)
            event_base_loopexit(base, &tv)
        }
    }

    /// Blocks until the loop's thread has ended. Never call on the loop itself.
    package func join() {
        precondition(!inLoop, "EventLoop.join on its own thread")
        finished.wait()
    }
}

/// The wake event's callback, on the loop thread. `context` is the EventLoop, unretained
/// (see EventLoop.init).
private func eventLoopWakeCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().drainInbox()
}

/// A job waiting for its time, as `event_base_once` carries it.
private final class ScheduledJob {
    let job: @Sendable () -> Void
    let registry: ScheduledJobs
    init(_ job: @escaping @Sendable () -> Void, registry: ScheduledJobs) {
        self.job = job
        self.registry = registry
    }
}

/// The boxes of one loop's scheduled jobs whose timers have not fired, by address: the loop's
/// deinit releases them. Any thread (jobs are scheduled from any thread).
private final class ScheduledJobs: Sendable {
    private let addresses = Locked<Set<UInt>>([])

    func insert(_ box: UnsafeMutableRawPointer) { addresses.withLock { _ = $0.insert(UInt(bitPattern: box)) } }
    func remove(_ box: UnsafeMutableRawPointer) { addresses.withLock { _ = $0.remove(UInt(bitPattern: box)) } }

    func takeAll() -> [UnsafeMutableRawPointer] {
        addresses.withLock { addresses in
            defer { addresses = [] }
            return addresses.compactMap { UnsafeMutableRawPointer(bitPattern: $0) }
        }
    }
}

/// A scheduled job's timer fired, on the loop thread; `context` is the retained job (see
/// `EventLoop.schedule`).
private func eventLoopScheduledCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let scheduled = Unmanaged<ScheduledJob>.fromOpaque(context!).takeRetainedValue()
    scheduled.registry.remove(context!)
    scheduled.job()
}

extension EventLoop {
    /// `duration` as libevent's `timeval`, for the timers of code on this loop in other
    /// targets (the Redis connection).
    package static func interval(_ duration: Duration) -> Glibc.timeval {
        Glibc.timeval(duration)
    }
}

extension timeval {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}

/// The app's view of a loop (`LoopExecutor`): `inLoop`, `post`, `execute` and `schedule`
/// above are its requirements.
extension EventLoop: LoopExecutor {}
