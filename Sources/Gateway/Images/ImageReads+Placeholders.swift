import GatewayModels
import HTTPInterface
import ImageProcessing
import Tracing

extension ImageReads {
    /// `url`'s placeholder as this process knows it now (never waits).
    func placeholder(for url: String) -> ImagePlaceholders.Lookup {
        placeholders.lookup(url)
    }

    /// Makes sure `url`'s placeholder is known: from memory, else the disk tier's record, else
    /// (with `--redis-url`, through `redis`, the loop's connection) the replicas' record, else
    /// its source (the disk tier's copy, else one fetch through `origin` under the image fetch
    /// policy: allowed hosts, every address checked, redirects checked, `--max-image-bytes`)
    /// previewed and hashed on an image worker under `--max-image-pixels` and
    /// `--image-render-timeout`, then stored in memory, on disk and in Redis.
    ///
    /// The work runs in the prefetch lane (``PrefetchLane``), holding its place there until the
    /// placeholder is stored (fetch and preview: released earlier, the lane fetched sources faster
    /// than one core previews them, and the renders clients wait for fell behind); one preparation per URL however
    /// many ask; when the lane refuses it (full, or the origin failing) `completion` gets
    /// `.unknown` at once and a later read tries again. A source that cannot be fetched or
    /// decoded is remembered as failed for ``ImagePlaceholders/failureMemory``; a full worker
    /// queue is not a failure (`.unknown`). `completion` runs once, on any thread.
    ///
    /// `scope`: the recorded trace the preparation is done for (a request that waits for it,
    /// or a prefetch's background trace): the wait for a place in the lane is an INTERNAL span
    /// `prefetch lane wait` of it, the source's fetch a CLIENT span, the preview an INTERNAL
    /// span `image.placeholder`. A preparation other requests join is the first one's.
    func preparePlaceholder(
        _ url: String, origin: (any OriginSending)?, redis: (any RedisCommanding)? = nil, requestID: String, scope: TraceScope? = nil,
        completion: @escaping @Sendable (ImagePlaceholders.Lookup) -> Void
    ) {
        let known = placeholders.lookup(url)
        guard known == .unknown else { return completion(known) }
        guard placeholderPreparations.join(url, waiter: completion) else { return }
        let submitted = ContinuousClock.now
        let refused = lane.submit(.image) { [self] done in
            scope?.recordInternal("prefetch lane wait", elapsed: .now - submitted)
            let finish: @Sendable (ImagePlaceholders.Lookup) -> Void = { [self] lookup in
                placeholderPreparations.finish(url, with: lookup)
                done()
            }
            // Its turn may come after a client's render computed it.
            let known = placeholders.lookup(url)
            guard known == .unknown else { return finish(known) }
            let compute: @Sendable () -> Void = { [self] in
                source(url, origin: origin, redis: redis, requestID: requestID, trace: scope?.trace, fetchedAhead: true) { [self] outcome in
                    guard case .image(let source) = outcome else {
                        metrics.imageRender(format: "placeholder", outcome: "source_failed", duration: nil)
                        placeholders.storeFailure(for: url)
                        return finish(.failed)
                    }
                    computePlaceholder(url, from: source, redis: redis, scope: scope, finish: finish)
                }
            }
            // Another replica's, else computed here.
            let fromReplicas: @Sendable () -> Void = { [self] in
                guard let shared, let redis else { return compute() }
                redis.loop.execute { [self] in
                    shared.placeholder(for: url, redis: redis) { [self] found in
                        guard let found else { return compute() }
                        placeholders.store(found, for: url)
                        writeRecord(found, for: url)
                        finish(.ready(found))
                    }
                }
            }
            guard let disk else { return fromReplicas() }
            disk.read(.placeholder(url)) { [self] record in
                guard let record, let placeholder = ImagePlaceholder(record: record.identity) else { return fromReplicas() }
                placeholders.store(placeholder, for: url)
                finish(.ready(placeholder))
            }
        }
        if refused != nil { placeholderPreparations.finish(url, with: .unknown) }
    }

    /// A source was fetched from its origin: whether its placeholder is to be computed from it
    /// (neither known nor under way). When true, the caller owns the preparation for `url` and
    /// must call ``computePlaceholder(fromFetched:_:)`` once; it does so after handing the source
    /// to the render that asked for it, whose job is then queued first.
    func reservePlaceholder(_ url: String) -> Bool {
        guard placeholders.lookup(url) == .unknown else { return false }
        return placeholderPreparations.join(url, waiter: { _ in })
    }

    /// Computes the placeholder of a source reserved with ``reservePlaceholder(_:)``.
    func computePlaceholder(fromFetched url: String, _ source: CachedPage, redis: (any RedisCommanding)?) {
        computePlaceholder(url, from: source, redis: redis) { [self] lookup in placeholderPreparations.finish(url, with: lookup) }
    }

    /// The disk tier's record of `placeholder` (kept beside the source, not held open).
    private func writeRecord(_ placeholder: ImagePlaceholder, for url: String) {
        disk?.write(
            CachedPage(
                status: 200, contentType: ImageFileFormat.placeholderType, identity: placeholder.record, gzip: nil, storedAt: .now,
                timeToLive: .seconds(31_536_000)),
            for: .placeholder(url))
    }

    /// Previews and hashes `source` on a worker, in the background lane (after every waiting
    /// render); stores the placeholder in memory, on disk and (through `redis`) in the
    /// replicas' Redis, or remembers the failure; then `finish` (on the worker, or at once
    /// when the lane is full: `.unknown`). With `scope`, the preview is an INTERNAL span
    /// `image.placeholder` of it.
    private func computePlaceholder(
        _ url: String, from source: CachedPage, redis: (any RedisCommanding)?, scope: TraceScope? = nil,
        finish: @escaping @Sendable (ImagePlaceholders.Lookup) -> Void
    ) {
        let (maxPixels, timeLimit) = (renderOptions.maxPixels, renderOptions.timeLimit)
        let submitted = workers.submitBackground { [self] in
            let started = ContinuousClock.now
            let computed = Result { () throws(ImageProcessingError) in
                try ImageProcessor.preview(source.identity, maxPixels: maxPixels, timeLimit: timeLimit)
            }
            let placeholder: ImagePlaceholder? =
                if case .success(let preview) = computed {
                    try? ImagePlaceholder(
                        sourceWidth: preview.sourceWidth, sourceHeight: preview.sourceHeight, previewWidth: preview.width,
                        previewHeight: preview.height, rgba: preview.rgba)
                } else {
                    nil
                }
            let failure: String? =
                if placeholder != nil { nil } else if case .failure(let error) = computed { Self.outcome(error) } else { "failed" }
            scope?.recordInternal(
                "image.placeholder", elapsed: .now - started,
                attributes: [
                    SpanAttribute(SemanticConventions.imageFormat, "placeholder"),
                    SpanAttribute(SemanticConventions.imageSourceBytes, source.identity.count),
                ],
                failure: failure)
            guard let placeholder else {
                let outcome = failure ?? "failed"
                metrics.imageRender(format: "placeholder", outcome: outcome, duration: .now - started)
                placeholders.storeFailure(for: url)
                return finish(.failed)
            }
            metrics.imageRender(format: "placeholder", outcome: "ok", duration: .now - started)
            placeholders.store(placeholder, for: url)
            writeRecord(placeholder, for: url)
            if let shared, let redis { redis.loop.execute { shared.store(placeholder, for: url, redis: redis) } }
            finish(.ready(placeholder))
        }
        if !submitted {
            metrics.imageRender(format: "placeholder", outcome: "busy", duration: nil)
            finish(.unknown)
        }
    }
}
