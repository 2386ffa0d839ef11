import Foundation

/// Environment variables as option defaults: `GATEWAY_MAX_BODY_BYTES=5` stands for
/// `--max-body-bytes 5` unless that option is on the command line. Options that carry a
/// secret may instead come from a file named by `GATEWAY_…_FILE` (the container-secrets
/// convention), so the secret sits in no process list and no environment dump.
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
        "rate-limit-burst", "trusted-proxies", "rate-limit-key-header", "admin-port", "admin-host", "admin-token", "metrics-on-admin", "log-format",
    ]

    /// Options without a value: the variable is `true` or `false`.
    static let flags: Set<String> = ["metrics-on-admin"]

    /// Options that carry a secret: each may come from the file `GATEWAY_…_FILE` names.
    static let secrets = ["admin-token", "redis-url", "origin-vendor-identifier", "image-signing-key"]

    /// `GATEWAY_` and the flag name in upper case with `_` for `-`.
    static func variable(for name: String) -> String {
        "GATEWAY_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// Why the environment cannot be used.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// `arguments` (without the program name) with `--name value` appended for every option
    /// that is set in `environment` (or, for a secret, in the file its `_FILE` variable names)
    /// and absent from `arguments` (as `--name v` or `--name=v`). A file's one trailing line
    /// end is not part of the secret.
    ///
    /// - Throws: `Problem` when a secret is set both directly and by file, a file cannot be
    ///   read or is empty, or a flag's variable is neither `true` nor `false`.
    static func merge(
        arguments: [String], environment: [String: String], readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    ) throws(Problem) -> [String] {
        var merged = arguments
        for name in names {
            let flag = "--" + name
            let present = arguments.contains { $0 == flag || $0.hasPrefix(flag + "=") }
            let variable = variable(for: name)
            var value = environment[variable]
            if secrets.contains(name), let path = environment[variable + "_FILE"] {
                guard value == nil else { throw Problem(description: "\(variable) and \(variable)_FILE are both set; set one.") }
                guard !present else { continue }
                value = try secret(fromFile: path, variable: variable + "_FILE", readFile: readFile)
            }
            guard let value, !present else { continue }
            if flags.contains(name) {
                switch value.lowercased() {
                case "true", "1", "yes": merged.append(flag)
                case "false", "0", "no", "": break
                default: throw Problem(description: "\(variable) must be true or false.")
                }
            } else {
                merged += [flag, value]
            }
        }
        return merged
    }

    private static func secret(fromFile path: String, variable: String, readFile: (String) throws -> Data) throws(Problem) -> String {
        let data: Data
        do {
            data = try readFile(path)
        } catch {
            throw Problem(description: "\(variable): cannot read \(path): \(error.localizedDescription)")
        }
        var bytes = [UInt8](data)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Problem(description: "\(variable): \(path) is not UTF-8 text.") }
        guard !text.isEmpty else { throw Problem(description: "\(variable): \(path) is empty.") }
        return text
    }
}
