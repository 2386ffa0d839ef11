/// Tokens already judged, by a keyed 128-bit digest of their bytes: verified ones until their
/// `exp` (checked on every use, with the skew the verifier allowed), and forged ones (a bad
/// signature), so that neither a repeat nor a replayed forgery costs a signature check.
///
/// Bounded: at most ``capacity`` verified tokens and ``forgeryCapacity`` forgeries, each kept
/// in two generations (a hit in the older one moves the token to the newer; when the newer is
/// full the older is dropped): least recently used first out, without a list to maintain.
/// A value type without locks: its owner (one per event loop, say) keeps it on one thread.
public struct TokenMemory: Sendable {
    public let capacity: Int
    public let forgeryCapacity: Int
    private var verified = Generations<VerifiedToken>()
    private var forged = Generations<Bool>()

    /// What is remembered of a token.
    public enum Lookup: Sendable, Hashable {
        case verified(VerifiedToken)
        /// Its signature was found bad: refuse it again without checking.
        case forged
        case unknown
    }

    public init(capacity: Int = 10_000, forgeryCapacity: Int = 1_000) {
        self.capacity = max(2, capacity)
        self.forgeryCapacity = max(2, forgeryCapacity)
    }

    /// What is known of the token with `digest` at `now` (seconds since 1970): a verified
    /// token past `exp` plus `skew` is forgotten and `.unknown` (the verifier then says
    /// `expired`).
    public mutating func lookup(_ digest: TokenDigest, now: Int64, skew: Int64) -> Lookup {
        if let token = verified.find(digest, half: capacity / 2) {
            guard now < token.expiresAt + skew else {
                verified.remove(digest)
                return .unknown
            }
            return .verified(token)
        }
        if forged.find(digest, half: forgeryCapacity / 2) != nil { return .forged }
        return .unknown
    }

    public mutating func remember(_ digest: TokenDigest, _ token: VerifiedToken) {
        verified.insert(digest, token, half: capacity / 2)
    }

    public mutating func rememberForgery(_ digest: TokenDigest) {
        forged.insert(digest, true, half: forgeryCapacity / 2)
    }

    /// The key set changed: tokens verified by a key no longer in `keys` are forgotten (a
    /// key removed from the set revokes what it signed), and so are forgeries (a signature
    /// bad under the old keys may be good under new ones).
    public mutating func keysChanged(to keys: JSONWebKeySet) {
        verified.removeAll { !keys.contains(keyID: $0.keyID) }
        forged = Generations()
    }

    /// How many tokens are remembered (tests, metrics).
    public var counts: (verified: Int, forged: Int) { (verified.count, forged.count) }
}

/// Two dictionaries, newer and older, each of at most `half` entries.
private struct Generations<Value: Sendable>: Sendable {
    var newer: [TokenDigest: Value] = [:]
    var older: [TokenDigest: Value] = [:]

    var count: Int { newer.count + older.count }

    mutating func find(_ digest: TokenDigest, half: Int) -> Value? {
        if let value = newer[digest] { return value }
        guard let value = older.removeValue(forKey: digest) else { return nil }
        insert(digest, value, half: half)
        return value
    }

    mutating func insert(_ digest: TokenDigest, _ value: Value, half: Int) {
        if newer[digest] == nil, newer.count >= half {
            older = newer
            newer = [:]
            newer.reserveCapacity(half)
        }
        newer[digest] = value
        older.removeValue(forKey: digest)
    }

    mutating func remove(_ digest: TokenDigest) {
        newer.removeValue(forKey: digest)
        older.removeValue(forKey: digest)
    }

    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        newer = newer.filter { !shouldRemove($0.value) }
        older = older.filter { !shouldRemove($0.value) }
    }
}

/// A token's 128-bit digest (``TokenDigester/digest(_:)``).
public struct TokenDigest: Sendable, Hashable {
    let high: UInt64
    let low: UInt64
}

/// Makes the digests tokens are remembered by: two SipHash-1-3 values (Swift's `Hasher`) of a
/// random key made here, a lane number and the token: 128 bits, keyed whatever
/// `SWIFT_DETERMINISTIC_HASHING` says, so no one can aim a token at another's entry (they would
/// need the key; a collision by chance is about 2^-64 per pair). Not SHA-256: swift-crypto 3
/// allocates a context for every hash on Linux, and this runs on every request that carries a
/// token. Allocates nothing. Immutable, thread-safe.
public struct TokenDigester: Sendable {
    private let key: (UInt64, UInt64)

    public init() {
        var random = SystemRandomNumberGenerator()
        key = (random.next(), random.next())
    }

    public func digest(_ token: UnsafeRawBufferPointer) -> TokenDigest {
        TokenDigest(high: lane(0, token), low: lane(1, token))
    }

    private func lane(_ number: UInt8, _ token: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(key.0)
        hasher.combine(key.1)
        hasher.combine(number)
        hasher.combine(bytes: token)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
