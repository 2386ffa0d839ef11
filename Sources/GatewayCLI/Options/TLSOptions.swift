import ArgumentParser
import Foundation
import Gateway

/// HTTPS on the public port. The files are read in `GatewayCommand.makeConfiguration`, and
/// again on SIGHUP (and when they change, with `--tls-reload-interval`).
struct TLSOptions: ConfigurationOptions {
    static let title = "TLS"
    @Option(help: "PEM certificate chain: serve HTTPS instead of HTTP (with --tls-key). Reloaded on SIGHUP. (env: GATEWAY_TLS_CERT)")
    var tlsCert: String?

    @Option(help: "PEM private key for --tls-cert. Reloaded on SIGHUP. (env: GATEWAY_TLS_KEY)")
    var tlsKey: String?

    @Option(help: ArgumentHelp("File of 80 random bytes (nginx's ssl_session_ticket_key format, `openssl rand 80`) sealing TLS session tickets, so clients resume on every replica and after a restart; repeatable, or comma-separated: the first seals new tickets, all open them. Default: a random key per process. Reloaded on SIGHUP. (env: GATEWAY_TLS_TICKET_KEY_FILE)", valueName: "file"))
    var tlsTicketKeyFile: [String] = []

    @Option(help: "Seconds between checks of the TLS files, reloading them when one changed (for secret volumes that send no signal); 0: only on SIGHUP. (env: GATEWAY_TLS_RELOAD_INTERVAL)")
    var tlsReloadInterval: Double = 0

    /// `--tls-ticket-key-file` values, each possibly a comma-separated list.
    var ticketKeyFiles: [String] {
        tlsTicketKeyFile.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func validate() throws {
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together.")
        }
        guard tlsCert != nil || (ticketKeyFiles.isEmpty && tlsReloadInterval == 0) else {
            throw ValidationError("--tls-ticket-key-file and --tls-reload-interval need --tls-cert and --tls-key.")
        }
        guard tlsReloadInterval >= 0, tlsReloadInterval <= 86_400 else {
            throw ValidationError("--tls-reload-interval must be 0 to 86400 seconds.")
        }
    }

    /// Nothing without file access: the server context is made from the files at start.
    func apply(to configuration: inout GatewayConfiguration) {}
}
