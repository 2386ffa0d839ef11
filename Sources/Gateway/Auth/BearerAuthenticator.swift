import Authentication
import Foundation
import GatewayModels
import HTTPInterface
import Observability
import Tracing
import Routing
import GatewaySupport

/// Judges bearer tokens (`Authorization: Bearer …`) for the router: on `/v1/products` and
/// below only (`/v1/images`, whose signed URLs image loaders fetch without headers, health,
/// readiness and metrics never look at one). There a presented token is always verified (a
/// bad one is 401 even where none is needed); `--auth-required` says where one must be
/// present (writes, or every request there); `--auth-write-scope` what writes need (403).
///
/// A token is verified once (reading, key, signature, claims: tens of microseconds on the
/// loop that first sees it) and then remembered by its digest until its `exp`
/// (``TokenMemory``); a forged signature is remembered too, so neither a repeat nor a
/// replayed forgery costs a signature check. Tokens of a key that leaves the set are
/// forgotten. An unknown `kid` asks ``AuthKeys`` for one refetch (at most one in 30 s) and the
/// request waits for it. Thread-safe; the token never reaches a log or an answer.
public final class BearerAuthenticator: RequestAuthenticating {
    private let configuration: AuthConfiguration
    private let policy: TokenPolicy
    public let keys: AuthKeys
    private let memory = Locked(TokenMemory())
    private let digester = TokenDigester()
    private let metrics: GatewayMetrics
    /// `Retry-After` of the 503 answered before the keys first load.
    static let keysRetryAfterSeconds = 5

    init(configuration: AuthConfiguration, keys: AuthKeys, metrics: GatewayMetrics) {
        self.configuration = configuration
        policy = configuration.policy
        self.keys = keys
        self.metrics = metrics
        keys.onChange { [memory] set in memory.withLock { $0.keysChanged(to: set) } }
    }

    /// What a request's path and method ask of its token.
    enum Need: Equatable {
        /// Not under `/v1/products`: no token is looked at.
        case none
        /// A token is judged when presented.
        case optional
        /// A token must be presented; `write` adds the write scope.
        case required(write: Bool)
    }

    func need(method: UnsafeRawBufferPointer, path: UnsafeRawBufferPointer) -> Need {
        let prefix = "/v1/products".utf8
        guard path.starts(with: prefix), path.count == prefix.count || path[prefix.count] == UInt8(ascii: "/") else { return .none }
        let write = !(method.elementsEqual("GET".utf8) || method.elementsEqual("HEAD".utf8) || method.elementsEqual("OPTIONS".utf8))
        if write { return .required(write: true) }
        return configuration.required == .all ? .required(write: false) : .optional
    }

    public func authenticate(_ request: RequestBytes) -> RequestAuthentication {
        let need = need(method: request.method, path: request.path)
        guard need != .none else { return .anonymous }
        guard let header = request.header("authorization"), let token = Self.bearerToken(header) else {
            if case .required = need { return .refused(.tokenRequired()) }
            return .anonymous
        }
        return judge(token, need: need, mayRefetch: true)
    }

    /// The token of an `Authorization: Bearer <token>` value (scheme without case, one or
    /// more spaces); nil for another scheme. An empty token is returned empty (refused as
    /// malformed).
    static func bearerToken(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let scheme = "bearer".utf8
        guard value.count >= scheme.count,
            zip(value.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 }),
            value.count == scheme.count || value[scheme.count] == UInt8(ascii: " ")
        else { return nil }
        var start = scheme.count
        while start < value.count, value[start] == UInt8(ascii: " ") { start += 1 }
        var end = value.count
        while end > start, value[end - 1] == UInt8(ascii: " ") || value[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: value[start..<end])
    }

    /// A token pending a refetch of the key set.
    private struct Pending: Sendable {
        let token: [UInt8]
        let need: Need
    }

    /// Judges `token`: from memory, else verified now against the current set.
    private func judge(_ token: UnsafeRawBufferPointer, need: Need, mayRefetch: Bool) -> RequestAuthentication {
        let now = Int64(Date().timeIntervalSince1970)
        let digest = digester.digest(token)
        switch memory.withLock({ $0.lookup(digest, now: now, skew: policy.clockSkew) }) {
        case .verified(let verified): return admitted(verified, need: need)
        case .forged: return .refused(.invalidToken(TokenRejection.badSignature.detail))
        case .unknown: break
        }
        guard let set = keys.current else {
            // Cannot be judged yet: needed, 503; presented where not needed, the request goes
            // on as if it had none.
            if case .required = need { return .refused(.authKeysUnavailable(retryAfterSeconds: Self.keysRetryAfterSeconds)) }
            return .anonymous
        }
        do {
            let verified = try TokenVerifier.verify(token, keys: set, policy: policy, now: now)
            metrics.authToken(outcome: "verified")
            memory.withLock { $0.remember(digest, verified) }
            return admitted(verified, need: need)
        } catch {
            if error == .unknownKey, mayRefetch { return .awaitingKeys(Pending(token: Array(token), need: need)) }
            metrics.authToken(outcome: error.reason)
            if error == .badSignature { memory.withLock { $0.rememberForgery(digest) } }
            return .refused(.invalidToken(error.detail))
        }
    }

    private func admitted(_ token: VerifiedToken, need: Need) -> RequestAuthentication {
        if need == .required(write: true), let scope = configuration.writeScope, !token.scopes.contains(scope) {
            return .refused(.insufficientScope(scope))
        }
        return .verified(RequestIdentity(issuer: token.issuer, subject: token.subject, scopes: token.scopes, claims: token.claims.all))
    }

    /// With `trace`, the wait for the key set is an INTERNAL span `auth.key_set wait` of the
    /// request, and a load it starts links to it.
    public func resume(
        _ pending: any Sendable, on loop: any LoopExecutor, trace: TraceScope?, completion: @escaping @Sendable (RequestAuthentication) -> Void
    ) {
        guard let pending = pending as? Pending else { return loop.execute { completion(.refused(.invalidToken(TokenRejection.unknownKey.detail))) } }
        let waited = ContinuousClock.now
        keys.refetch(cause: trace?.link) { [self] _ in
            trace?.recordInternal("auth.key_set wait", elapsed: .now - waited)
            loop.execute { [self] in
                let decided = pending.token.withUnsafeBytes { judge($0, need: pending.need, mayRefetch: false) }
                completion(decided)
            }
        }
    }
}
