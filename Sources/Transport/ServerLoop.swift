import CEvent
import COpenSSL
import Glibc
import HTTPCodec
import HTTPInterface
import Tracing
import Logging
import Observability
import Synchronization
import GatewaySupport

/// One event loop's share of the server: its listener, its client connections, and what
/// they reuse (the response-head buffer, the Date field, metrics), and what the assembler
/// attached to it (the origin client, the Redis connection).
///
/// Invariant: created before its loop starts, then used only on `loop`'s thread.
final class ServerLoop: @unchecked Sendable {
    let loop: EventLoop
    let core: ServerCore
    /// This loop's request metric handles.
    let requestMetrics: RequestMetrics
    /// What this loop's requests get: the origin client and Redis connection attached to it,
    /// the drain state. Set before the loop starts.
    private(set) var services: LoopServices
    /// What the assembler attached (the origin client, Redis connections, timers): started
    /// after the loop, closed with it, in order.
    private(set) var attachments: [any LoopAttachment] = []
    /// Accepts this loop's connections; nil once accepting stopped.
    private var listener: ConnectionListener?
    /// Every open connection, so drain and the connection cap can find idle ones.
    private var connections: [ObjectIdentifier: any ServerConnection] = [:]
    /// The response head being written; reused by every response on this loop.
    var head: [UInt8] = []
    /// Read buffers and decoders lent to this loop's connections while they read.
    var inputs: ConnectionInputPool
    /// `Date: <IMF-fixdate>\r\n`, rebuilt when the second changes.
    private(set) var dateField = DateField()
    /// Connections of this loop waiting between requests; read by the other loops.
    let idleConnections = Atomic<Int>(0)
    /// Every loop of the server (this one too), set before the loops start.
    var siblings: [ServerLoop] = []
    /// Where this loop's HTTP/2 connections read: nghttp2 takes what it is given at once, so
    /// one buffer serves them all. Owned; freed in deinit.
    let http2ReadBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Where TLS output is gathered into a record's worth (16 KiB, TLS's largest record) for
    /// one `SSL_write`, when it lies in more than one piece; lent for a call, by every TLS
    /// connection of this loop. Owned; freed in deinit.
    let tlsRecordBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
    /// An answer's HTTP/2 header fields being built; reused by every HTTP/2 answer on this loop.
    var http2Block = HTTP2HeaderBlock()
    /// The text of a recorded request's server span, gathered for `Tracer.recordServer`;
    /// reused by every span on this loop.
    var spanText = ServerSpanText()

    /// Sets up the loop's share and starts accepting on `socket` (already listening).
    init(loop: EventLoop, core: ServerCore, socket: Int32) throws(TransportError) {
        self.loop = loop
        self.core = core
        inputs = ConnectionInputPool(limits: core.requestLimits)
        requestMetrics = RequestMetrics(metrics: core.metrics)
        services = LoopServices(origin: nil, redis: nil, drain: core.drain, tracer: core.tracer)
        head.reserveCapacity(4096)
        listener = try ConnectionListener(socket: socket, server: self)
    }

    deinit {
        http2ReadBuffer.deallocate()
        tlsRecordBuffer.deallocate()
    }

    /// Takes what the assembler attaches to this loop. Before the loop starts.
    func attach(_ attached: LoopAttachments) {
        services = LoopServices(origin: attached.origin, redis: attached.redis, drain: core.drain, tracer: core.tracer)
        attachments = attached.attachments
    }

    /// The Date field for now, from the loop's cached time (no system call).
    func currentDateField() -> [UInt8] {
        var now = timeval()
        event_base_gettimeofday_cached(loop.base, &now)
        dateField.update(secondsSinceEpoch: now.tv_sec)
        return dateField.line
    }

    /// The Date field's value for now (`Sun, 06 Nov 1994 08:49:37 GMT`), for HTTP/2 answers.
    func currentDate() -> ArraySlice<UInt8> {
        let line = currentDateField()
        return line[6..<(line.count - 2)]
    }

    /// The second (since the epoch) of the loop's cached time, as `currentDate()` last read it.
    var currentSecond: Int { dateField.second }

    /// Takes a newly accepted socket: a connection, or a 503 when the process is at its cap
    /// and no idle connection of this loop can make room.
    func accepted(_ fd: Int32, peer: String, address: IPAddress) {
        if core.connections.load(ordering: .relaxed) >= core.configuration.maxConnections && !closeOneIdleConnection() {
            // Another loop may have an idle connection: it closes one soon, and this one is
            // served meanwhile (so in a burst the cap may be passed by up to one accept batch).
            guard let other = siblings.first(where: { $0 !== self && $0.idleConnections.load(ordering: .relaxed) > 0 }) else {
                ConnectionListener.refuse(fd, response: Self.overCapacityResponse)
                return
            }
            other.loop.post { _ = other.closeOneIdleConnection() }
        }
        var ssl: OpaquePointer?
        if let tls = core.configuration.tls {
            guard let made = tls.makeServerSSL() else {
                close(fd)
                return
            }
            ssl = made
        }
        guard let connection = ClientConnection(fd: fd, ssl: ssl, peer: peer, address: address, server: self) else {
            if let ssl { SSL_free(ssl) }
            close(fd)
            return
        }
        core.connections.add(1, ordering: .relaxed)
        connections[ObjectIdentifier(connection)] = connection
        connection.begin()
    }

    /// This loop's connections that hold a read buffer now, and its spare buffers. On the
    /// loop thread.
    var readStorage: (holding: Int, spare: Int) {
        (connections.values.count(where: \.holdsReadBuffer), inputs.spareCount)
    }

    /// Puts `successor` in `connection`'s place (an HTTP/1.1 connection that turned out to
    /// speak HTTP/2); the count of open connections does not change.
    func replace(_ connection: ClientConnection, with successor: any ServerConnection) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        connections[ObjectIdentifier(successor)] = successor
        if successor is HTTP2Connection { core.http2Connections.add(1, ordering: .relaxed) }
    }

    /// Called by a connection as it closes.
    func removed(_ connection: any ServerConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            core.connections.subtract(1, ordering: .relaxed)
            if connection is HTTP2Connection { core.http2Connections.subtract(1, ordering: .relaxed) }
        }
    }

    /// Closes one connection that waits between requests; false when there is none.
    private func closeOneIdleConnection() -> Bool {
        guard let idle = connections.values.first(where: \.isIdle) else { return false }
        idle.close()
        return true
    }

    /// Stops accepting and closes connections that wait between requests; busy ones finish
    /// their request and then close (replies carry `Connection: close` while draining). On
    /// the loop thread.
    func drain() {
        listener?.close()
        listener = nil
        for connection in Array(connections.values) {
            connection.drainBegan()
        }
    }

    /// Closes every connection and the listener. On the loop thread, or after it ended.
    func free() {
        siblings = []
        listener?.close()
        listener = nil
        for connection in Array(connections.values) {
            connection.close()
        }
        for attachment in attachments { attachment.close() }
    }

    /// The whole 503 answer given to a connection over the cap, made once.
    static let overCapacityResponse: [UInt8] = {
        let problem = GatewayError.serviceUnavailable("The gateway has too many open connections; retry shortly.")
            .response(requestID: RequestID.generate())
        var bytes: [UInt8] = []
        ResponseHeadWriter.appendStatusLine(503, to: &bytes)
        for field in problem.headers where field.name != RequestID.headerName {
            ResponseHeadWriter.appendField(field.name, field.value, to: &bytes)
        }
        ResponseHeadWriter.appendField("Retry-After", "1", to: &bytes)
        ResponseHeadWriter.appendField("Connection", "close", to: &bytes)
        ResponseHeadWriter.appendContentLength(problem.body.count, to: &bytes)
        ResponseHeadWriter.appendEnd(to: &bytes)
        return bytes + problem.body
    }()
}
