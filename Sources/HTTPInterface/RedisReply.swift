/// One Redis reply (RESP2), copied out of hiredis' reply object: plain Swift values the app
/// layer reads without touching C.
public enum RedisReply: Sendable, Equatable {
    /// A bulk string.
    case bytes([UInt8])
    /// A simple string (`OK`, `PONG`).
    case status(String)
    case integer(Int64)
    /// A nil bulk string or nil array.
    case null
    /// An error reply (`-ERR …`, `-NOSCRIPT …`): Redis refused the command.
    case error(String)
    case array([RedisReply])

    /// The bytes of a bulk or simple string; nil otherwise.
    public var bytes: [UInt8]? {
        switch self {
        case .bytes(let bytes): bytes
        case .status(let text): Array(text.utf8)
        default: nil
        }
    }

    /// A bulk or simple string as text; nil otherwise.
    public var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
}

/// Why a Redis command got no reply.
public enum RedisFailure: Error, Sendable, Equatable {
    /// Not sent: no connection now (connecting, backing off after a failure), the breaker is
    /// open after repeated failures, or too many commands wait already.
    case unavailable
    /// Sent, and no answer before its deadline; a late answer is dropped.
    case timedOut
    /// Sent, and the connection closed before the answer came.
    case connectionLost
    /// Redis answered with an error reply.
    case refused(String)
}
