import GatewaySupport
import HTTPInterface

/// One GET to the identity provider, as the runtime makes it (the transport's origin client on
/// the first loop, with `--auth-ca-file`'s CAs), or a fake in tests.
public protocol KeySetFetching: Sendable {
    /// GETs `target` from `endpoint` (a URL already checked: https, or http on loopback)
    /// without following redirects, reading at most `maxBytes` of body within the origin
    /// client's time limits. `completion` runs once, on any thread, with the answer (any
    /// status) or why there is none. With `trace` (a recorded load's), the GET is a CLIENT
    /// span of it; the trace is not sent to the provider.
    func get(
        _ target: String, from endpoint: OriginEndpoint, maxBytes: Int, trace: TraceContext?,
        completion: @escaping @Sendable (Result<OriginResponse, OriginFailure>) -> Void)
}
