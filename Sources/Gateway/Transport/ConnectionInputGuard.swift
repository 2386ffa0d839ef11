import CEvent

/// Gives every client connection a bufferevent whose input is scanned by a
/// `RequestHeadScanner` before evhttp parses it (see that type for why).
///
/// evhttp asks for the bufferevent through `evhttp_set_bevcb`; an evbuffer callback on its
/// input buffer then sees each read's new bytes first, because socket bufferevents without
/// `BEV_OPT_DEFER_CALLBACKS` run buffer callbacks inside the read, before the read callback
/// that hands the bytes to evhttp.
///
/// Invariant: used only on its loop's thread.
final class ConnectionInputGuard {
    /// Scanners by bufferevent address. libevent gives no notice when it frees a connection's
    /// bufferevent, so an entry is replaced when a new bufferevent gets the same address
    /// (the old one is then certainly gone); the table never holds more entries than the
    /// loop's peak number of connections.
    private var scanners: [UnsafeMutableRawPointer: Scanner] = [:]

    /// One connection's scanner; the evbuffer callback's context.
    final class Scanner {
        var state = RequestHeadScanner()
    }

    /// A new bufferevent for evhttp (plain, or TLS when `tls` is a server context), with the
    /// scanner attached to its (decrypted) input. On the loop thread.
    func makeBufferevent(base: OpaquePointer, tls: TLSContext?) -> OpaquePointer? {
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
        let created: OpaquePointer?
        if let tls {
            guard let ssl = tls.makeServerSSL() else { return nil }
            // The bufferevent owns `ssl` from here; evhttp gives it the socket with setfd.
            created = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, options)
            if created == nil { SSL_free(ssl) }
        } else {
            created = bufferevent_socket_new(base, -1, options)
        }
        guard let bufferevent = created else { return nil }
        let scanner = Scanner()
        scanners[UnsafeMutableRawPointer(bufferevent)] = scanner
        // Unmanaged: passUnretained. `scanners` keeps the scanner until this bufferevent's
        // address is reused, which can only happen after the bufferevent, its input buffer
        // and this callback were freed.
        evbuffer_add_cb(
            bufferevent_get_input(bufferevent), connectionInputCallback, Unmanaged.passUnretained(scanner).toOpaque())
        return bufferevent
    }

    /// Whether the scanner of `request`'s connection lost the framing (then NULs after that
    /// point are no longer rewritten, so the connection's requests are refused).
    func lostFraming(of request: OpaquePointer) -> Bool {
        guard let connection = evhttp_request_get_connection(request),
            let bufferevent = evhttp_connection_get_bufferevent(connection),
            let scanner = scanners[UnsafeMutableRawPointer(bufferevent)]
        else { return false }
        return scanner.state.state == .lost
    }

    /// Scans the bytes just added to `buffer`, rewriting in place.
    fileprivate static func scanAdded(_ buffer: OpaquePointer, added: Int, scanner: Scanner) {
        let total = evbuffer_get_length(buffer)
        guard added > 0, added <= total else { return }
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(buffer, &position, total - added, EVBUFFER_PTR_SET) == 0 else { return }
        var vectors = [iovec](repeating: iovec(), count: 4)
        var needed = Int(evbuffer_peek(buffer, added, &position, &vectors, Int32(vectors.count)))
        if needed > vectors.count {
            vectors = [iovec](repeating: iovec(), count: needed)
            needed = Int(evbuffer_peek(buffer, added, &position, &vectors, Int32(vectors.count)))
        }
        var remaining = added
        for vector in vectors.prefix(needed) where remaining > 0 {
            guard let base = vector.iov_base else { continue }
            let count = min(vector.iov_len, remaining)
            scanner.state.scan(UnsafeMutableBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
            remaining -= count
        }
    }
}

/// The input buffer's callback, on the loop thread, inside the socket read. `context` is the
/// connection's Scanner, unretained (see makeBufferevent).
private func connectionInputCallback(
    _ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?, _ context: UnsafeMutableRawPointer?
) {
    guard let buffer, let info, let context, info.pointee.n_added > 0 else { return }
    let scanner = Unmanaged<ConnectionInputGuard.Scanner>.fromOpaque(context).takeUnretainedValue()
    ConnectionInputGuard.scanAdded(buffer, added: info.pointee.n_added, scanner: scanner)
}

/// evhttp's bufferevent factory, on the loop thread. `context` is the HTTPFront, unretained
/// (see HTTPFront.init).
func connectionBuffereventCallback(_ base: OpaquePointer?, _ context: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let base, let context else { return nil }
    let front = Unmanaged<HTTPFront>.fromOpaque(context).takeUnretainedValue()
    return front.inputGuard.makeBufferevent(base: base, tls: front.core.configuration.tls)
}
