import ArgumentParser
import Gateway

/// One group of the gateway's options (server and limits, TLS, origin, caches, images,
/// replicas, rate limits, admin, logs): it declares its flags with their help, validates
/// them (ArgumentParser calls `validate()` when it decodes the group), and writes them into
/// the configuration. Its environment variables follow from its flags.
protocol ConfigurationOptions: ParsableArguments {
    /// The group's title in `--help` and in docs/configuration.md.
    static var title: String { get }

    /// The options whose value is a secret: each may also come from the file that
    /// `GATEWAY_…_FILE` names. Flag names without `--`.
    static var secrets: [String] { get }

    /// Every option of the group, in order (see the extension).
    static var options: [EnvironmentOptions.Option] { get }

    /// Writes these options into `configuration`. Runs after `validate()`.
    func apply(to configuration: inout GatewayConfiguration)
}

extension ConfigurationOptions {
    static var secrets: [String] { [] }

    /// Every option of the group as its flag name without `--` (ArgumentParser's name for a
    /// property: `maxBodyBytes` is `--max-body-bytes`), and whether it takes no value (a
    /// `@Flag`), read from the group's declared properties in order.
    static var options: [EnvironmentOptions.Option] {
        var options: [EnvironmentOptions.Option] = []
        for child in Mirror(reflecting: Self()).children {
            guard let label = child.label, label.hasPrefix("_") else { continue }
            let type = String(describing: Swift.type(of: child.value))
            guard type.hasPrefix("Option<") || type.hasPrefix("Flag<") else { continue }
            let name = kebabCase(String(label.dropFirst()))
            options.append(EnvironmentOptions.Option(name: name, isFlag: type.hasPrefix("Flag<"), isSecret: secrets.contains(name)))
        }
        return options
    }

    /// `maxBodyBytes` as `max-body-bytes` (ArgumentParser's default for long names).
    private static func kebabCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "-" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
