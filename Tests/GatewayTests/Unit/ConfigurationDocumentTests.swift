import Foundation
import Testing
@testable import GatewayCLI

/// `docs/configuration.md` against the command: the same groups, flags, variables and
/// defaults as `--help`, in the same order.
@Suite struct ConfigurationDocumentTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// One row of the document's flag tables.
    struct Row: Equatable {
        var group: String
        var flag: String
        var variable: String
        var defaultValue: String
    }

    /// The rows under `## Every flag`, each with the `###` group it stands under.
    static func documentRows() throws -> [Row] {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        var rows: [Row] = []
        var group = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("### ") { group = String(line.dropFirst(4)) }
            if line.hasPrefix("## ") && !line.hasPrefix("## Every flag") && !rows.isEmpty { break }
            guard let match = line.wholeMatch(of: /\| `--([a-z0-9-]+)` \| `([A-Z0-9_]+)` \| ([^|]+) \|.*/) else { continue }
            rows.append(Row(group: group, flag: String(match.1), variable: String(match.2), defaultValue: String(match.3)))
        }
        return rows
    }

    /// Each option's default as `--help` prints it (`(default: …)`), nil when it prints none;
    /// read from a help without line wrapping.
    static func helpDefaults() -> [String: String] {
        let help = GatewayCommand.helpMessage(columns: 100_000)
        var defaults: [String: String] = [:]
        var current: String?
        // An option's line, then (for a long name) its help on the next line.
        for line in help.split(separator: "\n") {
            if let option = line.firstMatch(of: /^\s*--([a-z0-9-]+)/) {
                current = String(option.1)
            } else if !line.hasPrefix("      ") {
                current = nil
            }
            if let current, let value = line.firstMatch(of: /\(default: ([^)]*)\)\s*$/) { defaults[current] = String(value.1) }
        }
        return defaults
    }

    /// Defaults the help prints from this machine (cores, descriptor limit): the document
    /// says how they are derived instead.
    static let machineDefaults: Set<String> = ["threads", "max-connections"]

    @Test func theConfigurationDocumentIsTheHelp() throws {
        let rows = try Self.documentRows()
        #expect(rows.map(\.flag) == EnvironmentOptions.names, "the same flags in the same order")
        for row in rows {
            #expect(row.variable == EnvironmentOptions.variable(for: row.flag), "\(row.flag)")
        }
        // The groups: the document's headings are the help's group titles, in order, each
        // holding that group's flags.
        let help = GatewayCommand.helpMessage(columns: 100_000)
        var expectedGroups: [String] = []
        for group in GatewayCommand.groups {
            let title = try #require(GatewayCommand.groupTitles[ObjectIdentifier(group)])
            #expect(help.contains(title.uppercased() + ":") || help.contains(title + ":"), "the help shows the group \(title)")
            expectedGroups += group.options.map { _ in title }
        }
        #expect(rows.map(\.group) == expectedGroups)

        let defaults = Self.helpDefaults()
        for row in rows {
            let documented = row.defaultValue.trimmingCharacters(in: .whitespaces)
            if Self.machineDefaults.contains(row.flag) {
                #expect(!documented.hasPrefix("`") && documented != "—", "\(row.flag): derived, in words")
                continue
            }
            guard let printed = defaults[row.flag] else {
                let isFlag = EnvironmentOptions.flags.contains(row.flag)
                #expect(documented == (isFlag ? "`false`" : "—"), "\(row.flag) has no default in --help")
                continue
            }
            #expect(documented.hasPrefix("`") && documented.hasSuffix("`"), "\(row.flag): \(documented)")
            let value = String(documented.dropFirst().dropLast())
            if let number = Double(value), let printedNumber = Double(printed) {
                #expect(number == printedNumber, "\(row.flag): document \(value), help \(printed)")
            } else {
                #expect(value == printed, "\(row.flag): document \(value), help \(printed)")
            }
        }
    }
}
