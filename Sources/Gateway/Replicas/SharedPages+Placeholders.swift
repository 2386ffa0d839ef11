import GatewayModels
import HTTPInterface

/// Placeholders in the replicas' Redis: one record per source URL
/// (`<prefix>ph:<epoch>:<digest of the URL>`, the bytes of ``ImagePlaceholder/record``, kept
/// 30 days), so a placeholder computed by one replica is handed out by every other without a
/// fetch of its source, and the same after any restart. Under the purge epoch of the pages:
/// `POST /admin/purge` of everything (a source may have changed at its URL) leaves every
/// record behind, as it drops the replicas' own. Failures are not shared (each replica
/// remembers its own for a minute). Everything fails open: Redis unreachable is a miss.
///
/// Called on the loop that owns `redis`; completions run there.
extension SharedPages {
    /// How long a record is kept after it was last written.
    static let placeholderLifetime: Duration = .seconds(30 * 24 * 3600)

    /// KEYS[1] the purge epoch; ARGV the record key's prefix and suffix.
    static let placeholderReadScript = """
        return redis.call('GET', ARGV[1] .. (redis.call('GET', KEYS[1]) or '0') .. ARGV[2])
        """
    /// KEYS[1] the purge epoch; ARGV the record key's prefix and suffix, the record, its
    /// lifetime in milliseconds.
    static let placeholderWriteScript = """
        return redis.call('SET', ARGV[1] .. (redis.call('GET', KEYS[1]) or '0') .. ARGV[2], ARGV[3], 'PX', ARGV[4])
        """

    private func placeholderKey(_ url: String) -> (before: [UInt8], after: [UInt8]) {
        (Array((prefix + "ph:").utf8), Array((":" + ReplicaNamespace.digest([Array(url.utf8)]).prefix(32)).utf8))
    }

    /// `url`'s placeholder as the replicas stored it; nil when none is (or Redis cannot say).
    func placeholder(for url: String, redis: any RedisCommanding, completion: @escaping (ImagePlaceholder?) -> Void) {
        let (before, after) = placeholderKey(url)
        redis.send([Array("EVAL".utf8), Array(Self.placeholderReadScript.utf8), Array("1".utf8), Array(epochKey.utf8), before, after]) {
            [self] result in
            switch result {
            case .success(.bytes(let record)):
                completion(ImagePlaceholder(record: record))
            case .success:
                completion(nil)
            case .failure:
                metrics.cacheEvent("error", cache: Self.metricName)
                completion(nil)
            }
        }
    }

    /// Stores `placeholder` as `url`'s for every replica. Failures are counted, not reported.
    func store(_ placeholder: ImagePlaceholder, for url: String, redis: any RedisCommanding) {
        let (before, after) = placeholderKey(url)
        redis.send([
            Array("EVAL".utf8), Array(Self.placeholderWriteScript.utf8), Array("1".utf8), Array(epochKey.utf8), before, after,
            placeholder.record, Self.placeholderLifetime.redisMilliseconds,
        ]) { [self] result in
            if case .failure = result { metrics.cacheEvent("error", cache: Self.metricName) }
        }
    }
}
