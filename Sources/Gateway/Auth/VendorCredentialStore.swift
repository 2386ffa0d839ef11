import Foundation
import GatewayModels
import GatewaySupport

/// The v2/v2b vendor credentials the gateway writes with for signed-in callers
/// (`--vendor-credentials-file`), looked up by the value of the token's vendor claim.
///
/// Thread-safe: lookups come from the loops, reloads from the signal thread; a reload swaps
/// the whole table at once, and one that fails keeps the table in use. File access happens
/// only in ``load(path:)`` and ``reload(force:)``: never call those on a loop.
public final class VendorCredentialStore: Sendable {
    /// The path as given: re-opened by it on each reload, so a secret volume's swapped
    /// symbolic link is followed.
    public let path: String
    private let state: Locked<State>

    private struct State: Sendable {
        var credentials: [String: VendorCredential]
        /// Every identifier and secret, longest first: never shown back to a client.
        var redactions: [String]
        var stamp: Stamp?
    }

    /// What tells a changed file from the one loaded: the file the path leads to, its inode,
    /// size and modification time.
    struct Stamp: Sendable, Hashable {
        let target: String
        let inode: UInt64
        let size: UInt64
        let modified: Date
        let mode: Int
    }

    /// Why the file cannot be used (start refuses; a reload keeps the table in use).
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// A table held in memory, never reloaded (`--demo-auth`, tests).
    public init(credentials: [String: VendorCredential], path: String = "") {
        self.path = path
        state = Locked(State(credentials: credentials, redactions: Self.redactions(of: credentials), stamp: nil))
    }

    /// Reads the file at start.
    /// - Returns: the store, and a warning to log when other users may read the file.
    /// - Throws: ``Problem`` when the file cannot be read or examined, its group or other
    ///   users may write it, or its contents are refused (``VendorCredentialsFile/parse(_:)``).
    public static func load(path: String) throws(Problem) -> (store: VendorCredentialStore, warning: String?) {
        let (credentials, stamp, warning) = try read(path)
        let store = VendorCredentialStore(credentials: credentials, path: path)
        store.state.withLock { $0.stamp = stamp }
        return (store, warning)
    }

    /// The credentials for a vendor claim's value; nil for a vendor the file does not name.
    public func credential(for vendor: String) -> VendorCredential? {
        state.withLock { $0.credentials[vendor] }
    }

    /// Every identifier and secret in the file: what origin texts shown to clients are
    /// cleaned of.
    public var redactions: [String] {
        state.withLock { $0.redactions }
    }

    /// Whether the file the path leads to is not the one loaded (another file, size, time or
    /// mode). Examines the file: off the loops.
    public var changed: Bool {
        guard !path.isEmpty else { return false }
        let now = try? Self.stamp(of: path)
        return state.withLock { $0.stamp != now }
    }

    /// The outcome of a reload.
    public enum Reload: Sendable {
        /// Loaded; the warning, if any, is to be logged.
        case loaded(vendors: Int, warning: String?)
        /// Nothing changed since the last attempt and `force` was false.
        case unchanged
    }

    /// Reads the file again when `force` (SIGHUP) or when it ``changed``; a file that cannot
    /// be used keeps the table in use (and is not tried again until it changes once more,
    /// unless forced).
    /// - Throws: ``Problem`` saying why the new file was refused.
    public func reload(force: Bool) throws(Problem) -> Reload {
        guard !path.isEmpty, force || changed else { return .unchanged }
        do {
            let (credentials, stamp, warning) = try Self.read(path)
            state.withLock { $0 = State(credentials: credentials, redactions: Self.redactions(of: credentials), stamp: stamp) }
            return .loaded(vendors: credentials.count, warning: warning)
        } catch {
            // Remember the refused file so a check at each interval reports it once.
            let stamp = try? Self.stamp(of: path)
            state.withLock { $0.stamp = stamp }
            throw error
        }
    }

    private static func read(_ path: String) throws(Problem) -> ([String: VendorCredential], Stamp, String?) {
        let stamp = try stamp(of: path)
        var warning: String?
        switch VendorCredentialsFile.judge(mode: stamp.mode) {
        case .writableByOthers:
            throw Problem(description: "--vendor-credentials-file \(path): its group or other users may write it (mode \(String(stamp.mode, radix: 8))); make it 0600 or 0640")
        case .readableByOthers:
            warning = "--vendor-credentials-file \(path) is readable by other users (mode \(String(stamp.mode, radix: 8)))"
        case .fine:
            break
        }
        guard let data = FileManager.default.contents(atPath: stamp.target) else {
            throw Problem(description: "--vendor-credentials-file \(path) cannot be read")
        }
        do {
            return (try VendorCredentialsFile.parse(Array(data)), stamp, warning)
        } catch {
            throw Problem(description: "--vendor-credentials-file \(path): \(error.description)")
        }
    }

    private static func stamp(of path: String) throws(Problem) -> Stamp {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: target),
            let type = attributes[.type] as? FileAttributeType, type == .typeRegular,
            let mode = attributes[.posixPermissions] as? Int
        else { throw Problem(description: "--vendor-credentials-file \(path) is not a readable regular file") }
        return Stamp(
            target: target, inode: (attributes[.systemFileNumber] as? UInt64) ?? 0, size: (attributes[.size] as? UInt64) ?? 0,
            modified: (attributes[.modificationDate] as? Date) ?? .distantPast, mode: mode)
    }

    private static func redactions(of credentials: [String: VendorCredential]) -> [String] {
        Set(credentials.values.flatMap { [$0.identifier, $0.secret] }).sorted { $0.count > $1.count }
    }
}
