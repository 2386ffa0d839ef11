import Foundation
import HTTPInterface

/// Where one image URL points: scheme, host, port and the request target. Parsed from the
/// URL a token carries, or from a redirect's `Location`.
struct ImageDestination: Sendable, Equatable {
    let scheme: OriginEndpoint.Scheme
    /// Lower-cased; IPv6 addresses without brackets.
    let host: String
    let port: Int
    /// Path and query (`/thumbnails/3-1.png`).
    let target: String

    /// Parses an absolute http or https URL (relative to `base` when given); nil for other
    /// schemes, user info, or no host.
    init?(url text: String, relativeTo base: URL? = nil) {
        guard let url = URL(string: text, relativeTo: base)?.absoluteURL,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme.flatMap({ OriginEndpoint.Scheme(rawValue: $0.lowercased()) }),
            var host = components.host?.lowercased(), !host.isEmpty, components.user == nil, components.password == nil
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == .https ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    var url: URL? {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return URL(string: "\(scheme.rawValue)://\(bracketed):\(port)\(target)")
    }
}

/// Which destinations image fetches may reach.
///
/// A destination's host and port must be the origin's, or an `--image-host` entry (`host`
/// or `host:port`, the scheme's default port when absent). Every address the host resolves
/// to must be public, except for the origin's own host and entries written as a literal IP
/// address: the operator named those, internal or not. A listed host *name* that resolves
/// to an internal address is refused (DNS rebinding and forgotten internal records).
struct ImageHostPolicy: Sendable {
    private struct Entry: Sendable, Equatable {
        let host: String
        let port: Int?
        let internalAllowed: Bool
    }

    private let entries: [Entry]

    init(origin: OriginEndpoint, allowedHosts: [String]) {
        var entries = [Entry(host: Self.normalised(origin.host), port: origin.port, internalAllowed: true)]
        for text in allowedHosts {
            guard let entry = Self.entry(text) else { continue }
            entries.append(entry)
        }
        self.entries = entries
    }

    /// Parses `host`, `host:port`, `[v6]` or `[v6]:port`; nil when malformed.
    static func validate(_ text: String) -> Bool { entry(text) != nil }

    private static func entry(_ text: String) -> Entry? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.isEmpty, !text.contains("/"), !text.contains("@") else { return nil }
        var host = text
        var port: Int?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()), (1...65535).contains(value) else { return nil }
                port = value
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            guard let value = Int(text[text.index(after: colon)...]), (1...65535).contains(value) else { return nil }
            port = value
        }
        guard !host.isEmpty else { return nil }
        return Entry(host: normalised(host), port: port, internalAllowed: ResolvedAddress(numeric: host) != nil)
    }

    private static func normalised(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return ResolvedAddress(numeric: host).map(\.description) ?? host
    }

    /// Nil when `destination` may not be fetched at all; otherwise whether its host may
    /// resolve to internal addresses.
    func internalAddressesAllowed(for destination: ImageDestination) -> Bool? {
        let host = Self.normalised(destination.host)
        let defaultPort = destination.scheme == .https ? 443 : 80
        let matching = entries.filter { $0.host == host && ($0.port ?? defaultPort) == destination.port }
        guard !matching.isEmpty else { return nil }
        return matching.contains { $0.internalAllowed }
    }
}

extension ImageConfiguration {
    /// Whether `text` is a usable `--image-host` value (`host`, `host:port`, `[v6]:port`).
    public static func isValidHost(_ text: String) -> Bool { ImageHostPolicy.validate(text) }
}
