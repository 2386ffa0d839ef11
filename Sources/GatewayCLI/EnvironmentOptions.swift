/// Environment variables as option defaults: `GATEWAY_MAX_BODY_BYTES=5` stands for
/// `--max-body-bytes 5` unless that option is on the command line.
enum EnvironmentOptions {
    /// The options that have an environment variable: the flag without `--`.
    static let names = [
        "host", "port", "threads", "origin", "origin-generation", "origin-vendor-identifier", "max-body-bytes", "max-upload-bytes", "max-header-bytes", "max-target-bytes", "idle-timeout",
        "header-timeout", "body-timeout", "write-timeout", "max-output-bytes", "max-connections",
        "shutdown-grace", "gzip-min-bytes", "origin-connect-timeout", "origin-timeout", "origin-max-connections",
        "origin-ca-file", "page-cache-bytes", "list-ttl", "detail-ttl", "stale-while-revalidate", "stale-if-error",
        "tls-cert", "tls-key", "log-level", "public-url", "cache-dir", "image-signing-key", "image-host", "max-image-bytes",
        "image-memory-bytes", "image-disk-bytes", "legacy-image-tokens", "origin-image-max-bytes", "image-widths", "image-formats", "avif-speed", "max-image-pixels",
        "image-render-timeout", "redis-url", "redis-timeout", "rate-limit-reads", "rate-limit-writes", "rate-limit-images",
        "rate-limit-burst", "trusted-proxies", "rate-limit-key-header",
    ]

    /// `GATEWAY_` and the flag name in upper case with `_` for `-`.
    static func variable(for name: String) -> String {
        "GATEWAY_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// `arguments` (without the program name) with `--name value` appended for every option
    /// that is set in `environment` and absent from `arguments` (as `--name v` or `--name=v`).
    static func merge(arguments: [String], environment: [String: String]) -> [String] {
        var merged = arguments
        for name in names {
            guard let value = environment[variable(for: name)] else { continue }
            let flag = "--" + name
            let present = arguments.contains { $0 == flag || $0.hasPrefix(flag + "=") }
            if !present { merged += [flag, value] }
        }
        return merged
    }
}
