import GatewaySupport

/// Which traces are recorded (`OTEL_TRACES_SAMPLER`): always, never, a share of trace ids,
/// or, parent-based, whatever the client's `traceparent` decided, with one of those for
/// traces that begin here. The decision is a pure function of the parent's sampled flag and
/// the trace id, so every replica decides the same for one trace.
public struct Sampler: Sendable, Equatable, CustomStringConvertible {
    public enum Root: Sendable, Equatable {
        case alwaysOn
        case alwaysOff
        /// A share of trace ids, 0 to 1.
        case ratio(Double)
    }

    public var root: Root
    /// Whether a request with a valid `traceparent` follows its sampled flag.
    public var parentBased: Bool

    public init(root: Root, parentBased: Bool) {
        self.root = root
        self.parentBased = parentBased
    }

    /// The SDKs' default: `parentbased_always_on`.
    public static let `default` = Sampler(root: .alwaysOn, parentBased: true)

    /// `OTEL_TRACES_SAMPLER`'s names (`always_on`, `always_off`, `traceidratio`,
    /// `parentbased_always_on`, `parentbased_always_off`, `parentbased_traceidratio`) with
    /// `OTEL_TRACES_SAMPLER_ARG` (a ratio from 0 to 1, default 1; for the ratio samplers only).
    ///
    /// - Throws: `TracingConfigurationError` for another name or a ratio that is not a number
    ///   from 0 to 1.
    public init(name: String, argument: String?) throws(TracingConfigurationError) {
        let lowered = name.lowercased()
        let parentBased = lowered.hasPrefix("parentbased_")
        let rootName = parentBased ? String(lowered.dropFirst("parentbased_".count)) : lowered
        switch rootName {
        case "always_on": root = .alwaysOn
        case "always_off": root = .alwaysOff
        case "traceidratio":
            let text = argument?.trimmingSpaces() ?? ""
            if text.isEmpty {
                root = .ratio(1)
            } else {
                guard let ratio = Double(text), ratio >= 0, ratio <= 1 else {
                    throw TracingConfigurationError("the sampler's argument must be a ratio from 0 to 1, not \(text)")
                }
                root = .ratio(ratio)
            }
        default:
            throw TracingConfigurationError(
                "unknown sampler \(name): use always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio")
        }
        self.parentBased = parentBased
    }

    /// Whether to record a trace whose id ends in `traceIDLow` (its last 16 hex digits as a
    /// number); `parentSampled` is the client's sampled flag, nil for a trace begun here.
    public func shouldSample(parentSampled: Bool?, traceIDLow: UInt64) -> Bool {
        if parentBased, let parentSampled { return parentSampled }
        switch root {
        case .alwaysOn: return true
        case .alwaysOff: return false
        case .ratio(let ratio):
            // The trace id's last 56 bits, which W3C Trace Context level 2 makes random.
            if ratio >= 1 { return true }
            let threshold = UInt64(ratio * Double(UInt64(1) << 56))
            return traceIDLow & 0x00FF_FFFF_FFFF_FFFF < threshold
        }
    }

    public var description: String {
        let rootName: String
        switch root {
        case .alwaysOn: rootName = "always_on"
        case .alwaysOff: rootName = "always_off"
        case .ratio(let ratio): rootName = "traceidratio(\(ratio))"
        }
        return parentBased ? "parentbased_" + rootName : rootName
    }
}
