import GatewaySupport
import Glibc
import HTTPCodec
import HTTPInterface

/// An HTTP/1.1 connection's buffering over its `ClientSocket`: reading into the lent buffer,
/// writing heads and bodies (one `writev`, or over TLS full records), files (`sendfile`,
/// plain only), queued output, discarding while lingering. Each reports its outcome to the
/// caller, which tells the machine; none decides what happens next.
extension ClientConnection {
    typealias ReadOutcome = HTTP1ConnectionStateMachine.ReadOutcome
    typealias WriteOutcome = HTTP1ConnectionStateMachine.WriteOutcome

    /// Reads once (TLS: until the session has no more decrypted bytes) into the buffer,
    /// borrowing one from the pool when none is lent.
    func receive() -> ReadOutcome {
        borrowStorage()
        var total = 0
        while true {
            guard makeRoom() else {
                // Only a chunked body's framing (many small chunks with long extensions)
                // can get here: heads and declared lengths are refused before.
                return .bufferFull
            }
            let room = min(input.count - end, Self.readChunk)
            let result = input.withUnsafeMutableBytes { bytes in
                socket.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[end..<(end + room)]))
            }
            switch result {
            case .bytes(let count):
                end += count
                total += count
                // The session may hold more (read ahead from the socket): no event would say so.
                if socket.hasBufferedInput { continue }
                return .bytes(total)
            case .wouldBlock:
                return total > 0 ? .bytes(total) : .nothing
            case .ended:
                return total > 0 ? .bytes(total) : .endOfStream
            case .plainHTTP:
                refusePlainHTTP()
                return .endOfStream
            }
        }
    }

    /// Plain HTTP came to the TLS port: answered 400 in plain text, counted
    /// (`gateway_plain_http_on_tls_total`) and logged; the connection then ends.
    private func refusePlainHTTP() {
        let requestID = RequestID.generate()
        let traceID = TraceContext.begin().traceID
        let peeked = socket.peekPlain()
        socket.refusePlainHTTP(PlainHTTPRefusal.response(peeked: peeked, requestID: requestID, traceID: traceID))
        server.core.metrics.counter("gateway_plain_http_on_tls_total").increment()
        server.core.logger.info(
            "plain HTTP sent to the TLS port: answered 400",
            metadata: ["client": "\(peer)", "request_id": "\(requestID)", "trace_id": "\(traceID)"], source: "Gateway")
    }

    /// Makes space after `end`: moves the current request to the front, or grows the
    /// buffer up to what the limits allow. False when the request is larger than any
    /// request the limits admit (the decoder refuses such requests before this point for
    /// heads and declared lengths; this bounds chunked bodies' framing too). The body's share
    /// is this request's own limit once its head is read (an upload route's is larger), the
    /// ordinary one before.
    private func makeRoom() -> Bool {
        if end < input.count { return true }
        if start > 0 {
            compact()
            return true
        }
        let limits = server.core.requestLimits
        let body = machine.isReadingBody ? decoder.head.maxBodyBytes : limits.maxBodyBytes
        let ceiling = limits.maxHeadBytes * 2 + body * 2 + Self.readChunk
        guard input.count < ceiling else { return false }
        input.append(contentsOf: repeatElement(0, count: min(input.count, ceiling - input.count)))
        return true
    }

    private func compact() {
        guard start > 0 else { return }
        let count = end - start
        if count > 0 {
            input.withUnsafeMutableBytes { bytes in
                bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + start, byteCount: count)
            }
        }
        start = 0
        end = count
    }

    /// Lingering: reads what the client still sends into scratch space and drops it.
    func discard() -> ReadOutcome {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        switch withUnsafeMutableBytes(of: &buffer, { socket.discard(into: $0) }) {
        case .bytes(let count): return .bytes(count)
        case .wouldBlock: return .nothing
        case .ended, .plainHTTP: return .endOfStream
        }
    }

    /// The outcome when output is left queued.
    private var queued: WriteOutcome { .pending(bytes: pendingBytes, sendingFile: pendingFile != nil) }

    /// Writes `head` and `body` now if nothing is queued, queueing what the socket does not
    /// take; otherwise queues both behind what is queued.
    func send(head: [UInt8], body: [UInt8]) -> WriteOutcome {
        if !hasPendingOutput, socket.isTLS { return sendRecords(head: head, body: body) }
        if !hasPendingOutput {
            let total = head.count + body.count
            let result = head.withUnsafeBytes { headBytes in
                body.withUnsafeBytes { bodyBytes in
                    var vectors = (
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: headBytes.baseAddress), iov_len: headBytes.count),
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: bodyBytes.baseAddress), iov_len: bodyBytes.count))
                    return withUnsafeMutablePointer(to: &vectors) {
                        $0.withMemoryRebound(to: iovec.self, capacity: 2) {
                            socket.write(vectors: UnsafeMutableBufferPointer(start: $0, count: body.isEmpty ? 1 : 2))
                        }
                    }
                }
            }
            var sent = 0
            switch result {
            case .wrote(let count) where count == total: return .drained
            case .wrote(let count): sent = count
            case .wouldBlock: break
            case .needsReadable, .failed: return .failed
            }
            queueUnsent(head: head, body: body, from: sent)
            return socket.armWrite() ? queued : .failed
        }
        if pending.count == pendingOffset {
            pending.removeAll(keepingCapacity: true)
            pendingOffset = 0
        }
        pending.append(contentsOf: head)
        pending.append(contentsOf: body)
        return flush()
    }

    /// Queues what follows the first `sent` bytes of `head` and `body` (nothing was queued).
    private func queueUnsent(head: [UInt8], body: [UInt8], from sent: Int) {
        pending.removeAll(keepingCapacity: true)
        pendingOffset = 0
        if sent < head.count {
            pending.append(contentsOf: head[sent...])
            pending.append(contentsOf: body)
        } else {
            pending.append(contentsOf: body[(sent - head.count)...])
        }
    }

    /// TLS with nothing queued: `head` and `body` in full records, a record's worth per
    /// write (each writes one record), taken from `body` in place or, where the head and the
    /// body meet, gathered into the loop's record buffer. What the socket does not take is
    /// queued; the retry passes the same bytes from the queue, which the socket allows.
    private func sendRecords(head: [UInt8], body: [UInt8]) -> WriteOutcome {
        let scratch = server.tlsRecordBuffer
        let total = head.count + body.count
        var offset = 0
        while offset < total {
            let count = min(scratch.count, total - offset)
            let result = head.withUnsafeBytes { headBytes in
                body.withUnsafeBytes { bodyBytes in
                    if offset >= head.count {
                        return socket.write(UnsafeRawBufferPointer(start: bodyBytes.baseAddress! + (offset - head.count), count: count))
                    }
                    let fromHead = min(count, head.count - offset)
                    (scratch.baseAddress!).copyMemory(from: headBytes.baseAddress! + offset, byteCount: fromHead)
                    if count > fromHead {
                        (scratch.baseAddress! + fromHead).copyMemory(from: bodyBytes.baseAddress!, byteCount: count - fromHead)
                    }
                    return socket.write(UnsafeRawBufferPointer(start: scratch.baseAddress, count: count))
                }
            }
            switch result {
            case .wrote(let written):
                offset += written
            case .failed:
                return .failed
            case .wouldBlock:
                queueUnsent(head: head, body: body, from: offset)
                return socket.armWrite() ? queued : .failed
            case .needsReadable:
                // The session needs the socket readable to go on writing (see flush()).
                queueUnsent(head: head, body: body, from: offset)
                apply(machine.writeNeedsReadable().reading)
                return queued
            }
        }
        return .drained
    }

    /// Writes `head` now (or queues it), then the file's body from its descriptor with
    /// `sendfile`, queueing what the socket does not take. Plain TCP only (TLS answers never
    /// carry files); the machine never lets an answer follow a file still being sent.
    func send(head: [UInt8], file: any FileBody) -> WriteOutcome {
        if !hasPendingOutput {
            // MSG_MORE: the head waits for the file's first bytes, one segment for both.
            var taken = 0
            switch head.withUnsafeBytes({ socket.write(more: $0) }) {
            case .wrote(let count): taken = count
            case .wouldBlock: break
            case .needsReadable, .failed: return .failed
            }
            if taken < head.count {
                pending.removeAll(keepingCapacity: true)
                pendingOffset = 0
                pending.append(contentsOf: head[taken...])
            }
        } else {
            pending.append(contentsOf: head)
        }
        pendingFile = file
        pendingFileOffset = file.bodyOffset
        pendingFileEnd = file.bodyOffset + file.bodyLength
        return flush()
    }

    /// Writes queued output until the socket takes no more.
    func flush() -> WriteOutcome {
        while pendingOffset < pending.count {
            // TLS: at most a record's worth per write is taken anyway.
            let result = pending.withUnsafeBytes { bytes in
                socket.write(UnsafeRawBufferPointer(rebasing: bytes[pendingOffset...]))
            }
            switch result {
            case .wrote(let written):
                pendingOffset += written
            case .wouldBlock:
                return socket.armWrite() ? queued : .failed
            case .needsReadable:
                // The session needs the socket readable to go on writing: reading
                // resumes (even after end of stream) and `readable` flushes first.
                apply(machine.writeNeedsReadable().reading)
                return queued
            case .failed:
                return .failed
            }
        }
        // Queued output is rare (a short write): its storage is not kept.
        pending = []
        pendingOffset = 0
        while let file = pendingFile {
            var offset = off_t(pendingFileOffset)
            switch socket.send(file: file.descriptor, offset: &offset, count: pendingFileEnd - pendingFileOffset) {
            case .wrote(let sent):
                pendingFileOffset += sent
                if pendingFileOffset >= pendingFileEnd { pendingFile = nil }
            case .wouldBlock:
                return socket.armWrite() ? queued : .failed
            case .needsReadable, .failed:
                // An error, or a file shorter than its header said: the answer cannot be finished.
                return .failed
            }
        }
        socket.disarmWrite()
        return .drained
    }

    /// After the last answer went out: shut the write side (TLS: close_notify first), so a
    /// reset does not destroy the answer in flight; the machine lingers or closes next.
    func shutOutput() {
        socket.shutOutput()
    }
}
