import HTTPInterface

/// What a loop knows of each of its client connections, whichever protocol it speaks
/// (`ClientConnection` for HTTP/1.1, `HTTP2Connection`): enough to drain, make room at the
/// connection cap and close at shutdown. On the loop's thread only.
protocol ServerConnection: AnyObject {
    /// Waiting with no request in progress and nothing to write: safe to close.
    var isIdle: Bool { get }
    /// Whether a read buffer of the loop's pool is lent to it now.
    var holdsReadBuffer: Bool { get }
    /// Closes the connection now. Idempotent.
    func close()
    /// The server began draining: answer what is in progress, take nothing new, then close.
    func drainBegan()
}

/// What answers a routed request (`ServerExchange` calls it on the loop's thread): the
/// connection that read it, and for HTTP/2 the stream (`ServerExchange.stream`).
protocol ExchangeConnection: AnyObject {
    var server: ServerLoop { get }
    var peer: String { get }
    /// Writes `response` as the answer to `exchange`'s request; dropped when the connection
    /// (or the stream) closed meanwhile.
    func respond(_ response: GatewayResponse, exchange: ServerExchange)
}
