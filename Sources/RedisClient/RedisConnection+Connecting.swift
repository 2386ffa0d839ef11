import CHiredis
import CEvent
import Dispatch
import Glibc
import HTTPInterface
import Logging
import Observability
import Transport

/// Connecting: resolving off the loop, the stream, the set-up commands (`AUTH`, `SELECT`,
/// `ROLE`, `CLIENT SETNAME`), readiness, losing the connection and trying again. On the loop
/// thread.
extension RedisConnection {
    /// Asks ``nodes`` where to go, resolves that host off the loop, then connects to its
    /// first address.
    func connect() {
        attempt += 1
        let thisAttempt = attempt
        phase = .locating
        arm()
        nodes.node(after: failed, on: eventLoop) { [self] node in
            guard thisAttempt == attempt, case .locating = phase else { return }
            guard let node else {
                logger.warning("redis primary not known: trying again", metadata: ["redis": "\(shown)"], source: "Gateway")
                return retryLater()
            }
            self.node = node
            phase = .resolving(deadline: .now + configuration.connectTimeout)
            arm()
            DispatchQueue.global().async { [self] in
                let address = Self.resolve(node.host)
                eventLoop.post { [self] in
                    guard thisAttempt == attempt, case .resolving = phase else { return }
                    guard let address else {
                        logger.warning("redis host does not resolve", metadata: ["redis": "\(shown)"], source: "Gateway")
                        return retryLater()
                    }
                    open(address, node: node)
                }
            }
        }
    }

    /// Leaves the node now and connects where ``nodes`` says (the sentinels named another
    /// primary). On the loop thread.
    package func move(to target: RedisNode) {
        switch phase {
        case .closed: return
        case .ready, .connecting, .resolving: if node == target { return }
        default: break
        }
        logger.info("redis connection moves to the new primary", metadata: ["redis": "\(nodes.describe(target))"], source: "Gateway")
        dropStream()
        backoff = Self.firstBackoff
        failed = nil
        connect()
    }

    /// The node is not the primary (`ROLE` says replica, or a write was refused `READONLY`):
    /// the connection is dropped and the sentinels asked again.
    func notPrimary(_ why: String) {
        guard stream != nil else { return }
        logger.warning("redis node is not the primary: asking the sentinels again", metadata: ["redis": "\(shown)", "why": "\(why)"], source: "Gateway")
        dropStream()
        retryLater()
    }

    /// The first IPv4 or IPv6 address of `host` (an address stays as it is). Blocking: off
    /// the loops only.
    static func resolve(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch first.pointee.ai_family {
        case AF_INET:
            var address = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        case AF_INET6:
            var address = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        default:
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func open(_ address: String, node: RedisNode) {
        if configuration.tls != nil, tls == nil {
            logger.error("redis needs TLS and has no TLS context", metadata: ["redis": "\(shown)"], source: "Gateway")
            return retryLater()
        }
        let made: OutboundStream
        do {
            made = try OutboundStream(
                loop: eventLoop, address: address, port: node.port, tls: configuration.tls == nil ? nil : tls,
                serverName: node.host
            ) { [unowned self] event in
                // unowned: the stream is closed (and reports nothing more) before this
                // connection goes away (dropStream, close).
                streamEvent(event)
            }
        } catch {
            logger.warning("redis connect failed", metadata: ["redis": "\(shown)", "error": "\(error)"], source: "Gateway")
            return retryLater()
        }
        stream = made
        reader = redisReaderCreate()
        streamConnected = false
        lastReply = .now
        phase = .connecting(deadline: .now + configuration.connectTimeout)
        arm()
        // Sent before any other command, so they run first on the new connection (the
        // stream keeps them until it connects).
        if let password = configuration.password {
            let arguments = [Array("AUTH".utf8)] + (configuration.username.map { [Array($0.utf8)] } ?? []) + [Array(password.utf8)]
            setUp(arguments, what: "AUTH")
        }
        if configuration.database != 0 {
            setUp([Array("SELECT".utf8), Array(String(configuration.database).utf8)], what: "SELECT")
        }
        let roleName = if case .subscriber = role { "subscriber" } else { name }
        // Before the connection is ready, so the replicas to wait for are known by then (and
        // with Sentinel, so a replica is never taken for the primary).
        let commands = if case .commands = role { true } else { false }
        if commands || nodes.followsFailovers { askRole(.setUp) }
        // The last set-up command: its answer makes the connection ready.
        setUp([Array("CLIENT".utf8), Array("SETNAME".utf8), Array("omg-\(roleName)-\(health.instance)".utf8)], what: "CLIENT SETNAME") {
            [self] in answered()
        }
        if case .subscriber(let channel, _, _) = role {
            // Not in `sent`: its confirmation, and every message after it, are the
            // subscription's.
            _ = Self.write([Array("SUBSCRIBE".utf8), Array(channel.utf8)], to: made)
        }
    }

    /// Asks Redis its `ROLE` (`sending`: `.setUp` or `.probe`); a primary's answer lists its
    /// connected replicas.
    func askRole(_ sending: Sending) {
        nextRole = .now + Self.heartbeatInterval
        send([Array("ROLE".utf8)], as: sending) { [self] result in
            guard case .success(.array(let parts)) = result, let role = parts.first?.text else { return }
            if role != "master", nodes.followsFailovers { return notPrimary("ROLE says \(role)") }
            guard role == "master", parts.count >= 3, case .array(let replicas) = parts[2] else { return }
            let before = health.setReplicasConnected(replicas.count)
            // Said once per change: keyed creates fail (503) while fewer replicas than asked
            // for can acknowledge their records.
            if before != replicas.count, let wanted = configuration.waitReplicas, wanted > replicas.count {
                logger.warning(
                    "redis has fewer replicas than --redis-wait-replicas: keyed creates are refused until more attach",
                    metadata: ["redis": "\(shown)", "replicas": "\(replicas.count)", "wanted": "\(wanted)"], source: "Gateway")
            }
        }
    }


    /// Sends a set-up command; an error reply (a wrong password, a database that does not
    /// exist) drops the connection, to be tried again later; any other reply runs
    /// `then`. Never logs the arguments.
    func setUp(_ arguments: [[UInt8]], what: String, then: @escaping () -> Void = {}) {
        send(arguments, as: .setUp) { [self] result in
            if case .success = result { return then() }
            guard case .failure(.refused(let message)) = result else { return }
            logger.error("redis refused \(what)", metadata: ["redis": "\(shown)", "error": "\(message)"], source: "Gateway")
            guard stream != nil else { return }
            dropStream()
            retryLater()
        }
    }

    /// Redis answered the set-up on this connection (with TLS: after the handshake and the
    /// certificate check): from now on it is up.
    func answered() {
        guard case .connecting = phase else { return }
        if case .subscriber = role {
            phase = .ready(linkBy: lastHeard == nil ? .now + Self.heartbeatTimeout : nil)
        } else {
            phase = .ready(linkBy: nil)
        }
        backoff = Self.firstBackoff
        failed = nil
        if let node { nodes.connected(to: node) }
        health.connectionUp()
        logger.info("redis connected", metadata: ["redis": "\(shown)"], source: "Gateway")
        arm()
    }

    /// The stream ended: it never connected (refused, a TLS failure) or the connection was
    /// lost. Says why, fails what waits, and tries again later.
    func disconnected(reason: String) {
        if case .ready = phase {
            logger.warning("redis connection lost", metadata: ["redis": "\(shown)", "error": "\(reason)"], source: "Gateway")
        } else {
            var why = reason
            if configuration.tls != nil, streamConnected, !reason.contains("certificate") {
                why += "; the server ended the connection after the TLS handshake: does it require a client certificate (--redis-cert, --redis-key)?"
            }
            logger.warning("redis connect failed", metadata: ["redis": "\(shown)", "error": "\(why)"], source: "Gateway")
        }
        dropStream()
        retryLater()
    }

    /// Tries again after the backoff; the next attempt tells ``nodes`` this one's node failed.
    func retryLater() {
        failed = node
        guard case .closed = phase else {
            let jitter = Double.random(in: 0.8...1.2)
            phase = .retrying(at: .now + backoff * jitter)
            backoff = min(backoff * 2, Self.maxBackoff)
            arm()
            return
        }
    }
}
