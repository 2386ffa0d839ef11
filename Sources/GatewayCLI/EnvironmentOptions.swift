import Foundation

/// Environment variables as option defaults: `GATEWAY_MAX_BODY_BYTES=5` stands for
/// `--max-body-bytes 5` unless that option is on the command line. Options that carry a
/// secret may instead come from a file named by `GATEWAY_…_FILE` (the container-secrets
/// convention), so the secret sits in no process list and no environment dump.
enum EnvironmentOptions {
    /// One option of the command, as its environment variable sees it.
    struct Option: Equatable, Sendable {
        /// The flag without `--`.
        var name: String
        /// A `@Flag`, without a value: its variable is `true` or `false`.
        var isFlag: Bool
        /// A secret: it may also come from the file `GATEWAY_…_FILE` names.
        var isSecret: Bool
    }

    /// Every option of every group of the command, in the order `--help` lists them: each
    /// has an environment variable.
    static let all: [Option] = GatewayCommand.groups.flatMap { $0.options }

    /// The options that have an environment variable: the flag without `--`.
    static var names: [String] { all.map(\.name) }

    /// Options without a value: the variable is `true` or `false`.
    static var flags: Set<String> { Set(all.filter(\.isFlag).map(\.name)) }

    /// Options that carry a secret: each may come from the file `GATEWAY_…_FILE` names.
    static var secrets: [String] { all.filter(\.isSecret).map(\.name) }

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
        for option in all {
            let flag = "--" + option.name
            let present = arguments.contains { $0 == flag || $0.hasPrefix(flag + "=") }
            let variable = variable(for: option.name)
            var value = environment[variable]
            if option.isSecret, let path = environment[variable + "_FILE"] {
                guard value == nil else { throw Problem(description: "\(variable) and \(variable)_FILE are both set; set one.") }
                guard !present else { continue }
                value = try secret(fromFile: path, variable: variable + "_FILE", readFile: readFile)
            }
            guard let value, !present else { continue }
            if option.isFlag {
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
