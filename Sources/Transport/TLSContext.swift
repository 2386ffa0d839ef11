import COpenSSL
import CTicketKeys
import Foundation

/// An OpenSSL `SSL_CTX`, set up once and then only read: OpenSSL allows `SSL_new` on a
/// shared context from any thread, so one instance serves every loop.
///
/// Client contexts verify the peer's certificate chain and its name (host name or IP
/// address) by default; server contexts present a certificate and key.
public final class TLSContext: @unchecked Sendable {
    /// Owned by this object; freed in deinit. Not modified after init.
    let context: OpaquePointer

    /// A client context trusting the system's CAs, or only `caFile` (PEM) when given; with
    /// `certificateFile` and `keyFile` (PEM, both or neither), presenting that certificate
    /// when a server asks for one.
    ///
    /// - Throws: `TransportError` when the CA file, the certificate or the key cannot be
    ///   loaded, or the key does not match the certificate.
    public static func client(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) throws(TransportError) -> TLSContext {
        let tls = try TLSContext(method: TLS_client_method())
        let loaded = caFile.map { SSL_CTX_load_verify_locations(tls.context, $0, nil) }
            ?? SSL_CTX_set_default_verify_paths(tls.context)
        guard loaded == 1 else {
            throw TransportError("cannot load CA certificates\(caFile.map { " from \($0)" } ?? ""): \(TLSContext.lastError())")
        }
        if certificateFile != nil || keyFile != nil {
            guard let certificateFile, let keyFile else { throw TransportError("a client certificate needs its key, and a key its certificate") }
            guard SSL_CTX_use_certificate_chain_file(tls.context, certificateFile) == 1,
                SSL_CTX_use_PrivateKey_file(tls.context, keyFile, SSL_FILETYPE_PEM) == 1,
                SSL_CTX_check_private_key(tls.context) == 1
            else {
                throw TransportError("cannot load the client certificate \(certificateFile) and key \(keyFile): \(TLSContext.lastError())")
            }
        }
        SSL_CTX_set_verify(tls.context, SSL_VERIFY_PEER, nil)
        return tls
    }

    /// A server context presenting `certificateFile` (PEM chain) with `privateKeyFile`.
    /// Sessions resume from tickets sealed with `ticketKeys` (the first encrypts, all decrypt)
    /// and are not stored in the process (an idle connection's session would otherwise stay in
    /// OpenSSL's cache). Sessions read ahead (one `read(2)` per record, not two), so a reader
    /// asks `SSL_has_pending` whether bytes are left in the session. ALPN answers `h2` when
    /// `offersHTTP2` and the client offers it, else `http/1.1`. TLS 1.2 is limited to ECDHE
    /// with AEAD ciphers (RFC 9113 §9.2.2 blocks the rest for HTTP/2, and they are weak anyway);
    /// TLS 1.3 keeps OpenSSL's suites; no early data (0-RTT could replay a write).
    ///
    /// - Throws: `TransportError` when either file cannot be loaded or they do not match.
    static func server(
        certificateFile: String, privateKeyFile: String, ticketKeys: TLSTicketKeys, offersHTTP2: Bool
    ) throws(TransportError) -> TLSContext {
        let tls = try TLSContext(method: TLS_server_method())
        guard SSL_CTX_use_certificate_chain_file(tls.context, certificateFile) == 1,
            SSL_CTX_use_PrivateKey_file(tls.context, privateKeyFile, SSL_FILETYPE_PEM) == 1,
            SSL_CTX_check_private_key(tls.context) == 1
        else {
            throw TransportError("cannot load TLS certificate \(certificateFile) and key \(privateKeyFile): \(TLSContext.lastError())")
        }
        copenssl_ctx_sessions_not_stored(tls.context)
        copenssl_ctx_read_ahead(tls.context)
        let installed = ticketKeys.bytes.withUnsafeBufferPointer { bytes in
            gateway_ctx_set_ticket_keys(tls.context, bytes.baseAddress, ticketKeys.count)
        }
        guard installed == 1 else { throw TransportError("cannot install the TLS session ticket keys: \(TLSContext.lastError())") }
        copenssl_ctx_select_alpn(tls.context, offersHTTP2 ? 1 : 0)
        guard SSL_CTX_set_cipher_list(tls.context, "ECDHE+AESGCM:ECDHE+CHACHA20") == 1 else {
            throw TransportError("cannot limit the TLS 1.2 ciphers: \(TLSContext.lastError())")
        }
        SSL_CTX_set_max_early_data(tls.context, 0)
        return tls
    }

    private init(method: OpaquePointer?) throws(TransportError) {
        guard let context = SSL_CTX_new(method) else { throw TransportError("SSL_CTX_new failed: \(TLSContext.lastError())") }
        self.context = context
        copenssl_ctx_min_tls12(context)
    }

    deinit { SSL_CTX_free(context) }

    /// A new `SSL` for a connection to `host`: SNI for host names, and the name or address
    /// the certificate must carry. The caller owns it (a bufferevent created with
    /// `BEV_OPT_CLOSE_ON_FREE` frees it).
    func makeClientSSL(host: String) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        if Self.isIPAddress(host) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            copenssl_set_sni(ssl, host)
            SSL_set1_host(ssl, host)
        }
        return ssl
    }

    /// A new `SSL` for an accepted connection. The caller owns it.
    func makeServerSSL() -> OpaquePointer? { SSL_new(context) }

    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// OpenSSL's most recent error on this thread, as text, clearing the queue.
    static func lastError() -> String {
        errorText(ERR_get_error())
    }

    static func errorText(_ code: UInt) -> String {
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        ERR_clear_error()
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
