import COpenSSL
import Glibc
import HTTPCodec
import HTTPInterface

/// The byte stream under a connection, plain or TLS, in one place: reading into the lent
/// buffer, writing heads and bodies (`writev`), files (`sendfile`, plain only), queued output,
/// discarding while lingering, shutting the write side. Each reports its outcome to the
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
            let count: Int = input.withUnsafeMutableBytes { bytes in
                let target = bytes.baseAddress! + end
                if let ssl { return Int(SSL_read(ssl, target, Int32(room))) }
                return Glibc.read(fd, target, room)
            }
            if count > 0 {
                end += count
                total += count
                // The session may hold more (read ahead from the socket): no event would say so.
                if let ssl, SSL_has_pending(ssl) != 0 { continue }
                return .bytes(total)
            }
            if let ssl {
                switch SSL_get_error(ssl, Int32(count)) {
                case SSL_ERROR_WANT_READ:
                    return total > 0 ? .bytes(total) : .nothing
                case SSL_ERROR_WANT_WRITE:
                    readWantsWrite = true
                    // Without a write event the session cannot go on: as if the stream ended.
                    guard armWrite() else { return total > 0 ? .bytes(total) : .endOfStream }
                    return total > 0 ? .bytes(total) : .nothing
                default:
                    ERR_clear_error()
                    return total > 0 ? .bytes(total) : .endOfStream
                }
            }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return total > 0 ? .bytes(total) : .nothing }
            return total > 0 ? .bytes(total) : .endOfStream
        }
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

    /// Lingering: reads what the client still sends into scratch space and drops it (the raw
    /// socket, TLS too: nothing is decrypted any more).
    func discard() -> ReadOutcome {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let count = withUnsafeMutableBytes(of: &buffer) { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count > 0 { return .bytes(count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return .nothing }
        return .endOfStream
    }

    /// The outcome when output is left queued.
    private var queued: WriteOutcome { .pending(bytes: pendingBytes, sendingFile: pendingFile != nil) }

    /// Writes `head` and `body` now if nothing is queued, queueing what the socket does not
    /// take; otherwise queues both behind what is queued.
    func send(head: [UInt8], body: [UInt8]) -> WriteOutcome {
        if !hasPendingOutput, let ssl { return sendRecords(ssl, head: head, body: body) }
        if !hasPendingOutput {
            let total = head.count + body.count
            let written = head.withUnsafeBytes { headBytes in
                body.withUnsafeBytes { bodyBytes in
                    var vectors = (
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: headBytes.baseAddress), iov_len: headBytes.count),
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: bodyBytes.baseAddress), iov_len: bodyBytes.count))
                    return withUnsafeMutablePointer(to: &vectors) {
                        $0.withMemoryRebound(to: iovec.self, capacity: 2) { writev(fd, $0, body.isEmpty ? 1 : 2) }
                    }
                }
            }
            if written == total { return .drained }
            if written < 0 && errno != EAGAIN && errno != EINTR { return .failed }
            queueUnsent(head: head, body: body, from: max(0, written))
            return armWrite() ? queued : .failed
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
    /// `SSL_write` (partial writes are on: each call writes one record), taken from `body` in
    /// place or, where the head and the body meet, gathered into the loop's record buffer.
    /// What the socket does not take is queued; the retry passes the same bytes from the
    /// queue, which `SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER` allows.
    private func sendRecords(_ ssl: OpaquePointer, head: [UInt8], body: [UInt8]) -> WriteOutcome {
        let scratch = server.tlsRecordBuffer
        let total = head.count + body.count
        var offset = 0
        while offset < total {
            let count = min(scratch.count, total - offset)
            let written: Int32 = head.withUnsafeBytes { headBytes in
                body.withUnsafeBytes { bodyBytes in
                    if offset >= head.count {
                        return SSL_write(ssl, bodyBytes.baseAddress! + (offset - head.count), Int32(count))
                    }
                    let fromHead = min(count, head.count - offset)
                    (scratch.baseAddress!).copyMemory(from: headBytes.baseAddress! + offset, byteCount: fromHead)
                    if count > fromHead {
                        (scratch.baseAddress! + fromHead).copyMemory(from: bodyBytes.baseAddress!, byteCount: count - fromHead)
                    }
                    return SSL_write(ssl, scratch.baseAddress, Int32(count))
                }
            }
            if written > 0 {
                offset += Int(written)
                continue
            }
            let error = SSL_get_error(ssl, written)
            guard error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ else {
                ERR_clear_error()
                return .failed
            }
            queueUnsent(head: head, body: body, from: offset)
            if error == SSL_ERROR_WANT_WRITE { return armWrite() ? queued : .failed }
            // The session needs the socket readable to go on writing (see flush()).
            writeWantsRead = true
            apply(machine.writeNeedsReadable().reading)
            return queued
        }
        return .drained
    }

    /// Writes `head` now (or queues it), then the file's body from its descriptor with
    /// `sendfile`, queueing what the socket does not take. Plain TCP only (TLS answers never
    /// carry files); the machine never lets an answer follow a file still being sent.
    func send(head: [UInt8], file: any FileBody) -> WriteOutcome {
        precondition(ssl == nil, "files are sent only on plain connections")
        if !hasPendingOutput {
            // MSG_MORE: the head waits for the file's first bytes, one segment for both.
            let sent = head.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_MORE) | Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno != EAGAIN && errno != EINTR { return .failed }
            let taken = max(0, sent)
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
            let count = pending.count - pendingOffset
            let written: Int = pending.withUnsafeBytes { bytes in
                let from = bytes.baseAddress! + pendingOffset
                if let ssl { return Int(SSL_write(ssl, from, Int32(min(count, Int(Int32.max))))) }
                return Glibc.write(fd, from, count)
            }
            if written > 0 {
                pendingOffset += written
                continue
            }
            if let ssl {
                switch SSL_get_error(ssl, Int32(written)) {
                case SSL_ERROR_WANT_WRITE:
                    return armWrite() ? queued : .failed
                case SSL_ERROR_WANT_READ:
                    // The session needs the socket readable to go on writing: reading
                    // resumes (even after end of stream) and `readable` flushes first.
                    writeWantsRead = true
                    apply(machine.writeNeedsReadable().reading)
                    return queued
                default:
                    ERR_clear_error()
                    return .failed
                }
            }
            if written < 0 && (errno == EAGAIN || errno == EINTR) { return armWrite() ? queued : .failed }
            return .failed
        }
        // Queued output is rare (a short write): its storage is not kept.
        pending = []
        pendingOffset = 0
        while let file = pendingFile {
            var offset = off_t(pendingFileOffset)
            let sent = sendfile(fd, file.descriptor, &offset, pendingFileEnd - pendingFileOffset)
            if sent > 0 {
                pendingFileOffset += sent
                if pendingFileOffset >= pendingFileEnd { pendingFile = nil }
                continue
            }
            if sent < 0 && (errno == EAGAIN || errno == EINTR) { return armWrite() ? queued : .failed }
            // An error, or a file shorter than its header said: the answer cannot be finished.
            return .failed
        }
        disarmWrite()
        return .drained
    }

    /// After the last answer went out: shut the write side (TLS: close_notify first), so a
    /// reset does not destroy the answer in flight; the machine lingers or closes next.
    func shutOutput() {
        if let ssl { SSL_shutdown(ssl) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }
}
