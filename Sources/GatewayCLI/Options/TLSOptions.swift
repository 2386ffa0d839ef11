import ArgumentParser
import Gateway

/// HTTPS on the public port. The files are read in `GatewayCommand.makeConfiguration`.
struct TLSOptions: ConfigurationOptions {
    static let title = "TLS"
    @Option(help: "PEM certificate chain: serve HTTPS instead of HTTP (with --tls-key). (env: GATEWAY_TLS_CERT)")
    var tlsCert: String?

    @Option(help: "PEM private key for --tls-cert. (env: GATEWAY_TLS_KEY)")
    var tlsKey: String?

    func validate() throws {
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together.")
        }
    }

    /// Nothing without file access: the server context is made from the files at start.
    func apply(to configuration: inout GatewayConfiguration) {}
}
