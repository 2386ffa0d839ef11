import HTTPCodec
import HTTPInterface
import Logging

/// What the access log says of one answer: the same keys in the text and JSON formats
/// (`bytes`, `cache`, `client`, `duration_ms`, `method`, `protocol`, `request_id`, `route`,
/// `status`, `trace_id`, and `user` for a verified bearer token's subject) and the message
/// `GET /path 200`.
package struct AccessLine {
    package var method: HTTPMethod
    /// `HTTP/1.0`, `HTTP/1.1` or `HTTP/2`.
    package var wireProtocol: WireProtocol
    package var path: String
    /// The route's pattern (`/v1/products/{id}`), not the raw path.
    package var route: String
    package var status: Int
    /// Body bytes sent.
    package var bytes: Int
    /// `hit`, `stale`, `shared_hit` or `miss`; nil for answers no cache is involved in.
    package var cache: String?
    /// The peer's address and port.
    package var client: String
    package var requestID: String
    package var traceID: String
    /// The verified token's subject (`sub`: 1 to 255 visible ASCII characters), or nil.
    package var user: String?

    package init(
        method: HTTPMethod, wireProtocol: WireProtocol, path: String, route: String, status: Int, bytes: Int, cache: String?, client: String,
        requestID: String, traceID: String, user: String? = nil
    ) {
        self.user = user
        self.method = method
        self.wireProtocol = wireProtocol
        self.path = path
        self.route = route
        self.status = status
        self.bytes = bytes
        self.cache = cache
        self.client = client
        self.requestID = requestID
        self.traceID = traceID
    }

    /// Logs this line through `logger`: straight into a ``BatchedLogHandler``'s writer as
    /// bytes when the logger is one without metadata of its own (the server's; no metadata
    /// dictionary, no sorting, one copy), else as any swift-log event with the keys as
    /// metadata. Both give the same line.
    package func log(to logger: Logger, elapsed: Duration) {
        if let handler = logger.handler as? BatchedLogHandler, handler.metadata.isEmpty {
            handler.write(self, elapsed: elapsed)
            return
        }
        logEvent(to: logger, elapsed: elapsed)
    }

    /// The line as a swift-log event with the keys as metadata (any handler).
    package func logEvent(to logger: Logger, elapsed: Duration) {
        var metadata: Logger.Metadata = [
            "request_id": .string(requestID), "trace_id": .string(traceID),
            "duration_ms": .stringConvertible(LogNumber(Self.milliseconds(elapsed))), "method": .string(method.rawValue),
            "protocol": .string(wireProtocol.rawValue),
            "route": .string(route), "status": .stringConvertible(status), "bytes": .stringConvertible(bytes), "client": .string(client),
        ]
        if let cache { metadata["cache"] = .string(cache) }
        if let user { metadata["user"] = .string(user) }
        // The source the direct path writes too: the server's module, as before this type
        // moved to its own target.
        logger.info("\(message)", metadata: metadata, source: "Gateway")
    }

    package var message: String { "\(method.rawValue) \(path) \(status)" }

    /// `12.345`: whole milliseconds, then three digits of microseconds.
    package static func milliseconds(_ duration: Duration) -> String {
        var bytes: [UInt8] = []
        appendMilliseconds(duration, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    package static func appendMilliseconds(_ duration: Duration, to bytes: inout [UInt8]) {
        let (seconds, attoseconds) = duration.components
        let micros = max(0, Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000))
        ResponseHeadWriter.appendDecimal(micros / 1000, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        let fraction = micros % 1000
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}
