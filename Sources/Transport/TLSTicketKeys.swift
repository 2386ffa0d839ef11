import COpenSSL
import Foundation

/// Session ticket keys, 80 bytes each as nginx's `ssl_session_ticket_key` reads them: a
/// 16-byte name, a 32-byte HMAC-SHA256 key, a 32-byte AES-256-CBC key. The first seals new
/// tickets; every one opens them. Replicas (and restarts) given the same files resume each
/// other's sessions.
struct TLSTicketKeys: Sendable, Equatable {
    /// The keys one after the other, `count` × 80 bytes.
    let bytes: [UInt8]

    static let keyBytes = 80

    var count: Int { bytes.count / Self.keyBytes }

    /// One random key, for a process given no key files: its tickets resume on this process
    /// only, across reloads, and not after a restart.
    ///
    /// - Throws: `TransportError` when OpenSSL's generator fails.
    static func random() throws(TransportError) -> TLSTicketKeys {
        var bytes = [UInt8](repeating: 0, count: keyBytes)
        guard RAND_bytes(&bytes, Int32(keyBytes)) == 1 else {
            throw TransportError("cannot make a TLS session ticket key: \(TLSContext.lastError())")
        }
        return TLSTicketKeys(bytes: bytes)
    }

    /// The keys in `files`, in order.
    ///
    /// - Throws: `TransportError` when a file cannot be read or does not hold exactly 80 bytes.
    static func load(_ files: [String]) throws(TransportError) -> TLSTicketKeys {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(files.count * keyBytes)
        for file in files {
            guard let handle = FileHandle(forReadingAtPath: file) else {
                throw TransportError("cannot read TLS ticket key file \(file): \(String(cString: strerror(errno)))")
            }
            defer { try? handle.close() }
            let data: Data
            do {
                data = try handle.read(upToCount: keyBytes + 1) ?? Data()
            } catch {
                throw TransportError("cannot read TLS ticket key file \(file): \(error)")
            }
            guard data.count == keyBytes else {
                throw TransportError(
                    "TLS ticket key file \(file) holds \(data.count == keyBytes + 1 ? "more than \(keyBytes)" : "\(data.count)") bytes; it must hold exactly \(keyBytes) (as `openssl rand 80 > file` makes)")
            }
            bytes += data
        }
        return TLSTicketKeys(bytes: bytes)
    }
}
