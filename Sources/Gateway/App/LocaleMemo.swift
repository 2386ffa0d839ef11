import GatewayModels
import GatewaySupport

/// Remembers what `Accept-Language` values resolved to, so a value seen before costs a byte
/// comparison, not a parse and no allocation. Holds at most `capacity` values (the first
/// ones seen; later ones are resolved each time, with the same answer). Thread-safe.
final class LocaleMemo: Sendable {
    private let resolver: LocaleResolver
    private let entries = Locked<[(value: [UInt8], locale: ClientLocale)]>([])
    static let capacity = 64

    init(_ resolver: LocaleResolver) {
        self.resolver = resolver
    }

    /// The locale for a header value's bytes (nil: no header), as `LocaleResolver` decides.
    func resolve(_ value: UnsafeRawBufferPointer?) -> ClientLocale {
        guard let value else { return resolver.resolve(acceptLanguage: nil) }
        if let known = entries.withLock({ entries in entries.first { $0.value.elementsEqual(value) }?.locale }) {
            return known
        }
        let locale = resolver.resolve(acceptLanguage: String(decoding: value, as: UTF8.self))
        let copy = Array(value)
        entries.withLock { entries in
            if entries.count < Self.capacity { entries.append((copy, locale)) }
        }
        return locale
    }
}
