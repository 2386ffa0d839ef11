import Synchronization

/// True for the first ``claim()`` only: whichever of several racing paths (an answer and its
/// timer, a job's end reported twice) claims first acts. Thread-safe.
final class OnceFlag: Sendable {
    private let taken = Atomic<Bool>(false)

    func claim() -> Bool {
        !taken.exchange(true, ordering: .acquiringAndReleasing)
    }
}
