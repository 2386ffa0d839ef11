import ArgumentParser
import Gateway

/// Where the gateway listens, and the limits and deadlines of its client connections.
struct ServerOptions: ConfigurationOptions {
    static let title = "Server and limits"
    @Option(help: "Address to listen on. (env: GATEWAY_HOST)")
    var host: String = "0.0.0.0"

    @Option(help: "Port to listen on; 0 picks a free port. (env: GATEWAY_PORT)")
    var port: Int = 8080

    @Flag(help: "Start even when another process listens on --port (or --admin-port) already, and share the port with it: for a hand-over to a new binary, the old one drained after. Off: a taken port fails the start. (env: GATEWAY_LISTEN_SHARED=true)")
    var listenShared = false

    @Option(help: "Event loops, each with its own thread, all on one port. Default: the CPUs the process may use (its affinity mask, lowered to a cgroup CPU quota). (env: GATEWAY_THREADS)")
    var threads: Int = GatewayConfiguration.defaultThreads

    @Option(help: "Largest request body accepted, in bytes; larger ones get 413. (env: GATEWAY_MAX_BODY_BYTES)")
    var maxBodyBytes: Int = 4 * 1024 * 1024

    @Option(help: "Largest body of a product create or update (writes that carry images), in bytes; larger ones get 413. (env: GATEWAY_MAX_UPLOAD_BYTES)")
    var maxUploadBytes: Int = 32 * 1024 * 1024

    @Option(help: "Largest request line plus headers accepted, in bytes; larger heads get 431. (env: GATEWAY_MAX_HEADER_BYTES)")
    var maxHeaderBytes: Int = 16 * 1024

    @Option(help: "Longest request target accepted, in bytes; longer ones get 414. (env: GATEWAY_MAX_TARGET_BYTES)")
    var maxTargetBytes: Int = 8192

    @Option(help: "Seconds a keep-alive connection may wait for its next request before it is closed. (env: GATEWAY_IDLE_TIMEOUT)")
    var idleTimeout: Double = 30

    @Option(help: "Seconds a client has to send a whole request head, from its first byte; then 408. (env: GATEWAY_HEADER_TIMEOUT)")
    var headerTimeout: Double = 10

    @Option(help: "Seconds a request body may make no progress; then 408. (env: GATEWAY_BODY_TIMEOUT)")
    var bodyTimeout: Double = 30

    @Option(help: "Seconds a client may leave answers unread before it is disconnected. (env: GATEWAY_WRITE_TIMEOUT)")
    var writeTimeout: Double = 30

    @Option(help: "Answer bytes queued per connection past which no more requests are read from it until it reads them. (env: GATEWAY_MAX_OUTPUT_BYTES)")
    var maxOutputBytes: Int = 4 * 1024 * 1024

    @Option(help: "Open client connections per process; past it new ones get 503 after idle ones are closed. Default: the descriptor limit less 256. (env: GATEWAY_MAX_CONNECTIONS)")
    var maxConnections: Int = GatewayConfiguration.defaultMaxConnections

    @Option(help: "Seconds in-flight requests may take to finish after SIGTERM or SIGINT. (env: GATEWAY_SHUTDOWN_GRACE)")
    var shutdownGrace: Double = 10

    @Option(help: "Smallest response body that is gzipped, in bytes. (env: GATEWAY_GZIP_MIN_BYTES)")
    var gzipMinBytes: Int = 1024

    @Option(help: "Whether clients may speak HTTP/2 (true or false): h2 by ALPN with --tls-cert, h2c with prior knowledge without. The admin listener speaks HTTP/1.1 only. (env: GATEWAY_HTTP2)")
    var http2: Bool = true

    @Option(help: "HTTP/2 streams a client may have open at once, advertised in SETTINGS; more are refused. (env: GATEWAY_HTTP2_MAX_CONCURRENT_STREAMS)")
    var http2MaxConcurrentStreams: Int = 100

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1 to 256.") }
        guard maxBodyBytes > 0 else { throw ValidationError("--max-body-bytes must be positive.") }
        guard maxUploadBytes > 0, maxUploadBytes <= 1 << 30 else { throw ValidationError("--max-upload-bytes must be positive and at most 1 GiB.") }
        guard maxHeaderBytes >= 1024 else { throw ValidationError("--max-header-bytes must be at least 1024.") }
        guard maxTargetBytes >= 256 else { throw ValidationError("--max-target-bytes must be at least 256.") }
        guard idleTimeout > 0, headerTimeout > 0, bodyTimeout > 0, writeTimeout > 0 else {
            throw ValidationError("--idle-timeout, --header-timeout, --body-timeout and --write-timeout must be positive.")
        }
        guard maxOutputBytes >= 64 * 1024 else { throw ValidationError("--max-output-bytes must be at least 65536.") }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive.") }
        guard shutdownGrace >= 0 else { throw ValidationError("--shutdown-grace must not be negative.") }
        guard gzipMinBytes >= 0 else { throw ValidationError("--gzip-min-bytes must not be negative.") }
        guard (1...10_000).contains(http2MaxConcurrentStreams) else { throw ValidationError("--http2-max-concurrent-streams must be 1 to 10000.") }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        configuration.host = host
        configuration.port = port
        configuration.listenShared = listenShared
        configuration.threads = threads
        configuration.maxBodyBytes = maxBodyBytes
        configuration.maxUploadBytes = maxUploadBytes
        configuration.maxHeaderBytes = maxHeaderBytes
        configuration.maxTargetBytes = maxTargetBytes
        configuration.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        configuration.headerTimeout = .milliseconds(Int64(headerTimeout * 1000))
        configuration.bodyTimeout = .milliseconds(Int64(bodyTimeout * 1000))
        configuration.writeTimeout = .milliseconds(Int64(writeTimeout * 1000))
        configuration.maxOutputBytes = maxOutputBytes
        configuration.maxConnections = maxConnections
        configuration.shutdownGrace = .milliseconds(Int64(shutdownGrace * 1000))
        configuration.compression.minimumBytes = gzipMinBytes
        configuration.http2 = http2
        configuration.http2MaxConcurrentStreams = http2MaxConcurrentStreams
    }
}
