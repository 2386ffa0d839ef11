import HTTPInterface
import Tracing

/// A loop's Redis connection as seen by the work of one recorded request: each command it
/// sends is a CLIENT span of the request (`db.system.name` `redis`, `db.operation.name` the
/// command, `server.address` and `server.port`; a command with no answer or an error reply
/// is an error, its `error.type` `unavailable`, `timeout`, `connection_lost` or `refused`).
/// Commands go through unchanged. Use it on the connection's loop, as the connection.
/// ``RouteContext`` hands handlers the loop's connection so wrapped when their request (or
/// the background work they run) is recorded.
package final class TracedRedis: RedisCommanding, @unchecked Sendable {
    let base: any RedisCommanding
    let scope: TraceScope

    /// `redis` itself when there is no scope (an unrecorded request costs nothing), else
    /// `redis` traced in `scope`.
    package static func wrap(_ redis: (any RedisCommanding)?, scope: TraceScope?) -> (any RedisCommanding)? {
        guard let redis, let scope else { return redis }
        if let traced = redis as? TracedRedis { return TracedRedis(base: traced.base, scope: scope) }
        return TracedRedis(base: redis, scope: scope)
    }

    private init(base: any RedisCommanding, scope: TraceScope) {
        self.base = base
        self.scope = scope
    }

    package var loop: any LoopExecutor { base.loop }
    package var isReachable: Bool { base.isReachable }
    package var server: (host: String, port: Int)? { base.server }

    package func send(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisFailure>) -> Void) {
        let span = begin(arguments)
        base.send(arguments) { result in
            span(result)
            completion(result)
        }
    }

    package func sendDurably(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisFailure>, _ replicated: Bool) -> Void) {
        let span = begin(arguments)
        base.sendDurably(arguments) { result, replicated in
            span(result)
            completion(result, replicated)
        }
    }

    /// Starts the CLIENT span of one command; the closure ends it with the command's result.
    private func begin(_ arguments: [[UInt8]]) -> (Result<RedisReply, RedisFailure>) -> Void {
        let started = ContinuousClock.now
        let scope = scope
        let operation = arguments.first.map { String(decoding: $0, as: UTF8.self).uppercased() } ?? "UNKNOWN"
        let server = base.server
        return { result in
            var attributes = [
                SpanAttribute(SemanticConventions.dbSystemName, "redis"), SpanAttribute(SemanticConventions.dbOperationName, operation),
            ]
            if let server {
                attributes.append(SpanAttribute(SemanticConventions.serverAddress, server.host))
                attributes.append(SpanAttribute(SemanticConventions.serverPort, server.port))
            }
            let failure: String? =
                switch result {
                case .success: nil
                case .failure(.unavailable): "unavailable"
                case .failure(.timedOut): "timeout"
                case .failure(.connectionLost): "connection_lost"
                case .failure(.refused): "refused"
                }
            scope.recordClient(operation, elapsed: .now - started, attributes: attributes, failure: failure)
        }
    }
}
