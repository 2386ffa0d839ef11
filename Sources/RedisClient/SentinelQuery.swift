import CHiredis
import Dispatch
import HTTPInterface
import Transport

/// Asks one sentinel which server is the primary of a name, on a connection of its own:
/// `AUTH` when the sentinels have a password, then `SENTINEL get-master-addr-by-name`; the
/// connection is closed after the answer, or at the deadline.
///
/// Invariant: everything after `ask` runs on `loop`'s thread (the name resolution off it);
/// `then` runs there exactly once. The query keeps itself alive (the stream's callback and
/// the deadline hold it) until it has answered.
final class SentinelQuery: @unchecked Sendable {
    enum Answer: Equatable {
        case primary(RedisNode)
        /// The sentinel answered and does not know the name (or knows no primary for it).
        case unknown
        /// No answer: why, in words.
        case failed(String)
    }

    private let loop: EventLoop
    private let sentinel: RedisNode
    private let commands: [[[UInt8]]]
    private let tls: TLSContext?
    private var then: ((Answer) -> Void)?
    private var stream: OutboundStream?
    private var reader: UnsafeMutablePointer<redisReader>?
    /// Replies still owed before the `SENTINEL` one (the `AUTH`'s).
    private var before: Int

    /// Starts the query. On `loop`'s thread.
    /// - Parameter timeout: for everything: resolving, connecting, the TLS handshake, the answer.
    static func ask(
        _ sentinel: RedisNode, masterName: String, password: String?, tls: TLSContext?, timeout: Duration, on loop: EventLoop,
        then: @escaping (Answer) -> Void
    ) {
        var commands: [[[UInt8]]] = []
        if let password { commands.append([Array("AUTH".utf8), Array(password.utf8)]) }
        commands.append([Array("SENTINEL".utf8), Array("get-master-addr-by-name".utf8), Array(masterName.utf8)])
        let query = SentinelQuery(loop: loop, sentinel: sentinel, commands: commands, tls: tls, then: then)
        loop.schedule(after: timeout) { query.finish(.failed("no answer within \(timeout)")) }
        DispatchQueue.global().async {
            let address = RedisConnection.resolve(sentinel.host)
            loop.post { query.open(address) }
        }
    }

    private init(loop: EventLoop, sentinel: RedisNode, commands: [[[UInt8]]], tls: TLSContext?, then: @escaping (Answer) -> Void) {
        self.loop = loop
        self.sentinel = sentinel
        self.commands = commands
        self.tls = tls
        self.then = then
        before = commands.count - 1
    }

    private func open(_ address: String?) {
        guard then != nil else { return }
        guard let address else { return finish(.failed("the host does not resolve")) }
        do {
            // The stream holds the query (strongly) until finish closes it.
            stream = try OutboundStream(loop: loop, address: address, port: sentinel.port, tls: tls, serverName: sentinel.host) { event in
                switch event {
                case .connected: break
                case .received(let bytes): self.received(bytes)
                case .closed(let reason): self.finish(.failed(reason))
                }
            }
        } catch {
            return finish(.failed("\(error)"))
        }
        reader = redisReaderCreate()
        for command in commands { _ = RedisConnection.write(command, to: stream!) }
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard let reader, let base = bytes.baseAddress else { return }
        guard redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) == REDIS_OK else {
            return finish(.failed("it sent what is not a reply"))
        }
        while then != nil {
            var object: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &object) == REDIS_OK else { return finish(.failed("it sent what is not a reply")) }
            guard let object else { return }
            let value = RedisConnection.value(of: object.assumingMemoryBound(to: redisReply.self))
            freeReplyObject(object)
            if before > 0 {
                before -= 1
                if case .error(let message) = value { return finish(.failed("it refused AUTH: \(message)")) }
                continue
            }
            finish(Self.answer(value))
        }
    }

    /// Reads `SENTINEL get-master-addr-by-name`'s reply: `[ip, port]`, or null.
    static func answer(_ reply: RedisReply) -> Answer {
        switch reply {
        case .array(let parts) where parts.count == 2:
            guard let host = parts[0].text, !host.isEmpty, let portText = parts[1].text, let port = Int(portText), (1...65535).contains(port) else {
                return .failed("it named no usable address")
            }
            return .primary(RedisNode(host: host, port: port))
        case .null, .array([]): return .unknown
        case .error(let message): return .failed("it refused: \(message)")
        default: return .failed("it answered what is not an address")
        }
    }

    private func finish(_ answer: Answer) {
        guard let then else { return }
        self.then = nil
        stream?.close()
        stream = nil
        if let reader {
            redisReaderFree(reader)
            self.reader = nil
        }
        then(answer)
    }
}
