/// One budget: `quota` requests per `windowSeconds`, plus `burst` more at once. Written
/// `N/s`, `N/m` or `N/h` (`--rate-limit-reads 600/m`).
///
/// The budget refills continuously (one request every `windowSeconds / quota`), so a client
/// that has been quiet for a window may send `quota + burst` requests at once, and no more
/// than the rate after that.
public struct RateRule: Sendable, Equatable {
    public let quota: Int
    public let windowSeconds: Int
    public let burst: Int

    public init(quota: Int, windowSeconds: Int, burst: Int = 0) {
        precondition(quota > 0 && windowSeconds > 0 && burst >= 0)
        self.quota = quota
        self.windowSeconds = windowSeconds
        self.burst = burst
    }

    /// Reads `N/s`, `N/m` or `N/h` with N from 1 to 1,000,000; nil otherwise.
    public init?(parsing text: String, burst: Int = 0) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), parts[0].utf8.count <= 7,
            let quota = Int(parts[0]), (1...1_000_000).contains(quota), burst >= 0, burst <= 1_000_000
        else { return nil }
        let window: Int
        switch parts[1] {
        case "s": window = 1
        case "m": window = 60
        case "h": window = 3600
        default: return nil
        }
        self.init(quota: quota, windowSeconds: window, burst: burst)
    }

    /// Nanoseconds between two requests at the rate (the emission interval).
    public var interval: Int64 { Int64(windowSeconds) * 1_000_000_000 / Int64(quota) }

    /// Requests a rested client may send at once.
    public var capacity: Int { quota + burst }

    /// `600/m` and so on (the largest unit that divides the window).
    public var description: String {
        switch windowSeconds {
        case 1: "\(quota)/s"
        case 60: "\(quota)/m"
        default: "\(quota)/h"
        }
    }
}
