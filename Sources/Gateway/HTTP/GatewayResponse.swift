/// One response as handlers produce it. The transport adds `X-Request-ID`, compresses when
/// the client and the content type allow it, and writes it on the loop that owns the request.
public struct GatewayResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response from already-encoded bytes.
    public static func json(_ body: [UInt8], status: Int = 200) -> GatewayResponse {
        GatewayResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }
}
