import CHiredis
import CEvent
import Dispatch
import Glibc
import HTTPInterface
import Logging
import Observability
import Transport

/// Bytes in, replies in order, the subscription's replies, deadlines, the heartbeats. On the
/// loop thread.
extension RedisConnection {
    // MARK: Bytes and replies

    /// What the stream reports, on the loop.
    func streamEvent(_ event: OutboundStream.Event) {
        switch event {
        case .connected: streamConnected = true
        case .received(let bytes): received(bytes)
        case .closed(let reason): disconnected(reason: reason)
        }
    }

    /// Bytes from Redis: fed to the reader, and every whole reply taken out in order.
    func received(_ bytes: UnsafeRawBufferPointer) {
        guard let reader, let base = bytes.baseAddress else { return }
        guard redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) == REDIS_OK else {
            return protocolError(reader)
        }
        while self.reader == reader {
            var object: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &object) == REDIS_OK else { return protocolError(reader) }
            guard let object else { return }
            let reply = object.assumingMemoryBound(to: redisReply.self)
            lastReply = .now
            if sentHead < sent.count {
                let id = sent[sentHead]
                sentHead += 1
                if sentHead == sent.count {
                    sent.removeAll(keepingCapacity: true)
                    sentHead = 0
                } else if sentHead > 1024 {
                    // A busy connection may never be idle: keep the array bounded.
                    sent.removeFirst(sentHead)
                    sentHead = 0
                }
                replied(id: id, reply: reply)
            } else {
                subscriptionReply(reply)
            }
            freeReplyObject(object)
        }
    }

    /// Redis sent what is not RESP (or not Redis at all: a TLS port spoken to in plain): the
    /// connection is dropped and made again.
    func protocolError(_ reader: UnsafeMutablePointer<redisReader>) {
        let message = withUnsafeBytes(of: reader.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        logger.warning("redis sent what is not a reply: reconnecting", metadata: ["redis": "\(shown)", "error": "\(message)"], source: "Gateway")
        dropStream()
        retryLater()
    }

    /// A reply on the subscription (`subscribe` confirmed, or a `message`).
    func subscriptionReply(_ reply: UnsafeMutablePointer<redisReply>) {
        let value = Self.value(of: reply)
        if case .error(let message) = value {
            // An ACL that denies the channel: the link deadline makes the connection again.
            return logger.error("redis refused SUBSCRIBE", metadata: ["redis": "\(shown)", "error": "\(message)"], source: "Gateway")
        }
        guard case .subscriber(_, _, let events) = role, case .array(let parts) = value, parts.count == 3 || parts.first?.text == "pong" else {
            return
        }
        switch parts[0].text {
        case "subscribe":
            lastHeard = .now
            if case .ready = phase { phase = .ready(linkBy: nil) }
            health.recordSuccess()
            // The owner first: whoever reads `isSubscribed` true finds it has acted on the link.
            events(.linked)
            health.setSubscribed(true)
            arm()
        case "message":
            lastHeard = .now
            if let payload = parts[2].bytes { events(.message(payload)) }
        case "pong":
            lastHeard = .now
        default:
            break
        }
    }

    /// The subscription is gone: tell the owner once.
    func unlink() {
        guard lastHeard != nil, case .subscriber(_, _, let events) = role else { return }
        lastHeard = nil
        events(.unlinked)
        health.setSubscribed(false)
    }

    // MARK: Replies and deadlines

    /// The reply to command `id` (valid only inside).
    func replied(id: Int, reply: UnsafeMutablePointer<redisReply>) {
        // Given up already (timed out, or failed with the whole queue): dropped.
        guard waitingHead < waiting.count, waiting[waitingHead].id == id, let completion = waiting[waitingHead].completion else { return }
        waiting[waitingHead].completion = nil
        advanceHead()
        health.recordSuccess()
        let value = Self.value(of: reply)
        guard case .error(let message) = value else { return completion(.success(value)) }
        // A primary demoted under this connection: left before the caller hears of it.
        if message.hasPrefix("READONLY"), nodes.followsFailovers { notPrimary("a write was refused: READONLY") }
        completion(.failure(.refused(message)))
    }

    /// A Swift copy of a reply hiredis' reader made (valid only until it is freed).
    static func value(of reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let r = reply.pointee
        func bytes() -> [UInt8] {
            guard let str = r.str, r.len > 0 else { return [] }
            return Array(UnsafeRawBufferPointer(start: str, count: r.len))
        }
        switch r.type {
        case REDIS_REPLY_STRING: return .bytes(bytes())
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(Int64(r.integer))
        case REDIS_REPLY_ARRAY:
            guard let elements = r.element else { return .array([]) }
            return .array((0..<r.elements).map { index in elements[index].map(value(of:)) ?? .null })
        default: return .null
        }
    }

    func advanceHead() {
        while waitingHead < waiting.count, waiting[waitingHead].completion == nil { waitingHead += 1 }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        } else if waitingHead > 1024 {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    /// Fails every waiting command (its late reply, if any, is dropped).
    func failAll(_ failure: RedisFailure) {
        let given = waiting[waitingHead...].compactMap { waiting in waiting.completion.map { (waiting.countsFailures, $0) } }
        waiting.removeAll(keepingCapacity: true)
        waitingHead = 0
        for (counts, completion) in given {
            if counts {
                health.recordFailure()
                metrics?.redisFailure("connection_lost")
            }
            completion(.failure(failure))
        }
    }

    /// The timer: commands past their deadline fail, a connection attempt past its deadline
    /// is abandoned, a reconnect delay ends, a connection that went silent (or a subscriber
    /// never subscribed) is made again.
    func timerFired() {
        let now = ContinuousClock.now
        let timedOut = waitingHead < waiting.count && waiting[waitingHead].deadline <= now
        while waitingHead < waiting.count, waiting[waitingHead].deadline <= now {
            let completion = waiting[waitingHead].completion
            let counts = waiting[waitingHead].countsFailures
            waiting[waitingHead].completion = nil
            waitingHead += 1
            if let completion {
                if counts {
                    health.recordFailure()
                    metrics?.redisFailure("timeout")
                }
                completion(.failure(.timedOut))
            }
        }
        advanceHead()
        switch phase {
        case .resolving(let deadline) where deadline <= now:
            logger.warning("redis host did not resolve in time", metadata: ["redis": "\(shown)"], source: "Gateway")
            retryLater()
        case .connecting(let deadline) where deadline <= now:
            let why =
                if stream?.waitsForHandshake == true { "connected, and the TLS handshake got no answer: does the server speak TLS on this port?" }
                else if streamConnected { "connected, and Redis did not answer" }
                else { "no connection" }
            logger.warning("redis did not connect in time", metadata: ["redis": "\(shown)", "error": "\(why)"], source: "Gateway")
            dropStream()
            retryLater()
        case .retrying(let at) where at <= now:
            connect()
        case .ready(let linkBy):
            if timedOut, outstanding > 0, now - lastReply > silenceLimit {
                logger.warning("redis stopped answering: reconnecting", metadata: ["redis": "\(shown)"], source: "Gateway")
                dropStream()
                return retryLater()
            }
            if let linkBy, now >= linkBy {
                logger.warning("redis subscription not confirmed in time: reconnecting", metadata: ["redis": "\(shown)"], source: "Gateway")
                dropStream()
                return retryLater()
            }
            if case .commands = role, now >= nextRole { askRole(.probe) }
            if case .subscriber(let channel, let heartbeat, _) = role, let lastHeard {
                if now - lastHeard > Self.heartbeatTimeout {
                    logger.warning("redis subscription silent: reconnecting", metadata: ["redis": "\(shown)"], source: "Gateway")
                    dropStream()
                    return retryLater()
                }
                if now >= nextBeat {
                    nextBeat = now + Self.heartbeatInterval
                    switch heartbeat {
                    case .publish(let publisher):
                        publisher.send([Array("PUBLISH".utf8), Array(channel.utf8), Array(RedisChannel.heartbeatMessage.utf8)]) { _ in }
                    case .ping:
                        // Not in `sent`: its `pong` comes as the subscription's.
                        if let stream { _ = Self.write([Array("PING".utf8)], to: stream) }
                    }
                }
            }
            arm()
        default:
            arm()
        }
    }

    /// Closes the stream (if any) and frees its reader: its waiting commands fail, the
    /// subscription (if any) is unlinked. The caller says what comes next (a retry, or
    /// nothing).
    func dropStream() {
        if let stream {
            stream.close()
            self.stream = nil
            if case .ready = phase { health.connectionDown() }
        }
        if let reader {
            redisReaderFree(reader)
            self.reader = nil
        }
        sent.removeAll(keepingCapacity: true)
        sentHead = 0
        failAll(.connectionLost)
        unlink()
    }

    /// Arms the timer for the earliest of: the oldest command's deadline, the connect
    /// deadline, the reconnect time.
    func arm() {
        guard let timer else { return }
        var next: ContinuousClock.Instant?
        if waitingHead < waiting.count { next = waiting[waitingHead].deadline }
        switch phase {
        case .resolving(let deadline), .connecting(let deadline): next = min(next ?? deadline, deadline)
        case .retrying(let at): next = min(next ?? at, at)
        case .ready(let linkBy):
            if let linkBy { next = min(next ?? linkBy, linkBy) }
            if case .commands = role { next = min(next ?? nextRole, nextRole) }
            if case .subscriber = role, let lastHeard {
                let beat = min(nextBeat, lastHeard + Self.heartbeatTimeout)
                next = min(next ?? beat, beat)
            }
        default: break
        }
        guard let next else {
            event_del(timer)
            return
        }
        var tv = EventLoop.interval(max(.zero, next - .now) + .microseconds(100))
        event_add(timer, &tv)
    }

    /// Closes the connection for good: waiting commands fail, nothing reconnects. On the loop
    /// thread, or after the loop ended.
    public func close() {
        if case .closed = phase { return }
        dropStream()
        phase = .closed
        if let timer {
            event_free(timer)
            self.timer = nil
        }
    }
}

/// The connection's timer, on the loop thread (unretained; see `RedisConnection.init`).
func redisTimerCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<RedisConnection>.fromOpaque(context!).takeUnretainedValue().timerFired()
}
