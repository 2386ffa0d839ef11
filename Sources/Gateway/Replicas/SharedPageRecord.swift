import Foundation

/// A cached page as the shared tier stores it in Redis: the contract bytes (identity and
/// gzip), status, content type, header fields, when it was made (wall-clock milliseconds, so
/// every replica ages it alike) and how long it is fresh. Pure: bytes in, bytes out.
///
/// Layout, integers big-endian: `OMP1`, status (u16), made-at ms since 1970 (i64), time to
/// live ms (i64), has-next-page (u8), content type (u16 length + bytes), field count (u8) and
/// per field name and value (u16 length + bytes each), identity (u32 length + bytes), gzip
/// (u32 length + bytes, or `FFFFFFFF` for none). ETags are not stored: they are content
/// hashes, made again from the bytes, identical on every replica.
enum SharedPageRecord {
    static let magic = Array("OMP1".utf8)

    /// What a record holds, with its age turned into this process's clock.
    struct Entry: Sendable, Equatable {
        let page: CachedPage
        let hasNextPage: Bool
    }

    /// The record of `page`, made `age` ago on this process's clock.
    static func encode(_ page: CachedPage, hasNextPage: Bool, now: ContinuousClock.Instant = .now, wallNow: Date = Date()) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(64 + page.identity.count + (page.gzip?.count ?? 0))
        append(UInt16(clamping: page.status), to: &bytes)
        let ageMs = max(0, (now - page.storedAt).milliseconds)
        append(Int64((wallNow.timeIntervalSince1970 * 1000).rounded(.down)) - ageMs, to: &bytes)
        append(page.timeToLive.milliseconds, to: &bytes)
        bytes.append(hasNextPage ? 1 : 0)
        appendShort(Array(page.contentType.utf8), to: &bytes)
        let fields = page.fields.prefix(255)
        bytes.append(UInt8(fields.count))
        for field in fields {
            appendShort(Array(field.name.utf8), to: &bytes)
            appendShort(Array(field.value.utf8), to: &bytes)
        }
        append(UInt32(page.identity.count), to: &bytes)
        bytes += page.identity
        if let gzip = page.gzip {
            append(UInt32(gzip.count), to: &bytes)
            bytes += gzip
        } else {
            append(UInt32.max, to: &bytes)
        }
        return bytes
    }

    /// The entry `bytes` hold, aged onto this process's clock; nil for anything `encode` did
    /// not write (another version, a truncated value).
    static func decode(_ bytes: [UInt8], now: ContinuousClock.Instant = .now, wallNow: Date = Date()) -> Entry? {
        var reader = Reader(bytes: bytes)
        guard reader.take(4) == magic, let status = reader.integer(UInt16.self), (100...599).contains(status),
            let madeAt = reader.integer(Int64.self), let ttlMs = reader.integer(Int64.self), ttlMs >= 0,
            let next = reader.take(1), let contentType = reader.short(), let fieldCount = reader.take(1)
        else { return nil }
        var fields: [(String, String)] = []
        for _ in 0..<Int(fieldCount[0]) {
            guard let name = reader.short(), let value = reader.short() else { return nil }
            fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        guard let identityCount = reader.integer(UInt32.self), let identity = reader.take(Int(identityCount)),
            let gzipCount = reader.integer(UInt32.self)
        else { return nil }
        var gzip: [UInt8]?
        if gzipCount != UInt32.max {
            guard let body = reader.take(Int(gzipCount)) else { return nil }
            gzip = body
        }
        guard reader.atEnd else { return nil }
        let nowMs = Int64((wallNow.timeIntervalSince1970 * 1000).rounded(.down))
        // A clock a little behind another replica's would make a negative age.
        let age = Duration.milliseconds(max(0, nowMs - madeAt))
        let page = CachedPage(
            status: Int(status), contentType: String(decoding: contentType, as: UTF8.self), identity: identity, gzip: gzip,
            storedAt: now - age, timeToLive: .milliseconds(ttlMs), fields: fields)
        return Entry(page: page, hasNextPage: next[0] == 1)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }

    private static func appendShort(_ value: [UInt8], to bytes: inout [UInt8]) {
        let kept = value.prefix(Int(UInt16.max))
        append(UInt16(kept.count), to: &bytes)
        bytes += kept
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard let raw = take(MemoryLayout<T>.size) else { return nil }
            return raw.reduce(T.zero) { ($0 << 8) | T(truncatingIfNeeded: $1) }
        }

        mutating func short() -> [UInt8]? {
            guard let count = integer(UInt16.self) else { return nil }
            return take(Int(count))
        }
    }
}

extension Duration {
    /// The whole milliseconds in this duration.
    var milliseconds: Int64 { nanoseconds / 1_000_000 }

    /// Whole milliseconds, at least 1, as a Redis argument (`PX`).
    var redisMilliseconds: [UInt8] { Array(String(max(1, milliseconds)).utf8) }
}
