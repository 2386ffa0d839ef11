/// One response as handlers produce it. The transport adds `X-Request-ID`, compresses when
/// the client and the content type allow it, and writes it on the loop that owns the request.
public struct GatewayResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// When true the transport sends nothing: it resets the client's connection instead.
    /// A fault-injection tool for test origins (the demo origin's "dropped connections").
    public var dropsConnection: Bool
    /// How a cache took part in this answer, for the access line; nil when none did.
    public var cacheOutcome: CacheOutcome?

    public init(
        status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], dropsConnection: Bool = false, cacheOutcome: CacheOutcome? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.dropsConnection = dropsConnection
        self.cacheOutcome = cacheOutcome
    }

    /// A response that resets the connection without a byte of reply.
    public static var droppedConnection: GatewayResponse {
        GatewayResponse(status: 500, dropsConnection: true)
    }

    /// A JSON response from already-encoded bytes.
    public static func json(_ body: [UInt8], status: Int = 200) -> GatewayResponse {
        GatewayResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }
}
