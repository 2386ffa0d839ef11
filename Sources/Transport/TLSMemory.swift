import CTLSMemory

/// OpenSSL's allocator for the process (`Sources/CTLSMemory`): per-thread free lists by size
/// class, so that the record buffers a TLS session gives back whenever they are empty
/// (`SSL_MODE_RELEASE_BUFFERS`, which keeps idle connections bufferless) are taken again
/// without a call into malloc.
public enum TLSMemory {
    /// Installs the allocator. Works only before OpenSSL allocates anything, so the
    /// executable calls it first thing in `main`, on the main thread; true when installed,
    /// false when OpenSSL had already allocated or a sanitizer is built in (OpenSSL then
    /// keeps malloc, and all still works).
    @discardableResult
    public static func install() -> Bool {
        gateway_tls_memory_install() == 1
    }
}
