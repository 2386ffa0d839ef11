import BodyCompression
import CoreMetrics
import Foundation
import GatewaySupport
import HTTPInterface
import Logging
import Observability
import Tracing
import Transport

/// Sends finished spans to an OTLP/HTTP collector as the SDKs' batch span processor does:
/// a batch when `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` spans wait or every
/// `OTEL_BSP_SCHEDULE_DELAY`, one export at a time, gzipped (zlib's fastest level: spans
/// are repetitive, and the exporter shares the machine with the loops), retried by
/// ``ExportRetry``'s rules. It runs on a loop of its own (`tracing`), with the gateway's own HTTP client
/// (`OriginClient`, trusting `--tracing-ca-file`): encoding, gzip and a collector that is
/// down or slow never reach a request loop, whose only part is a span copied into the
/// queue. The loop's thread runs under `SCHED_IDLE` (``EventLoop/Priority/idle``): when the
/// processor is short, requests come first and spans wait (and, once the queue is full,
/// are dropped and counted) rather than answers.
///
/// Counts `gateway_trace_spans_exported_total`, `gateway_trace_spans_dropped_total`
/// (`reason`: `queue_full`, `export_failed`) and `gateway_trace_exports_failed_total`; logs
/// a failure once when a run of failures begins and once when exports work again. Headers
/// sent to the collector are never logged.
///
/// Thread: ``start()``, ``wake()`` and ``shutdown()`` from any thread; everything else on the
/// exporter's loop.
final class TraceExporter: @unchecked Sendable {
    let tracer: Tracer
    private let configuration: TracingConfiguration
    private let resource: TraceResource
    private let endpoint: OriginEndpoint
    private let target: String
    private let loop: EventLoop
    private let tls: TLSContext?
    private let logger: Logger
    private let exported: CoreMetrics.Counter
    private let droppedFull: CoreMetrics.Counter
    private let droppedFailed: CoreMetrics.Counter
    private let failedExports: CoreMetrics.Counter

    /// The loop's: the client, the batch being sent (or waiting to be sent again), and the
    /// state of a run of failures.
    private var client: OriginClient?
    /// Spans taken from the queue (`drain`), sent from `taken` on in batches.
    private var taken: [QueuedSpan] = []
    private var takenIndex = 0
    private var batch: Batch?
    private var failing = false
    private var failuresInRun = 0
    private var countedDropped: UInt64 = 0
    private var stopping = false
    private var finished: (@Sendable () -> Void)?

    private struct Batch {
        let count: Int
        let body: [UInt8]
        var retry: ExportRetry
        let firstAttempt: ContinuousClock.Instant
    }

    /// - Throws: `TransportError` when the endpoint is not a URL the client can use, the CA
    ///   file cannot be loaded, or the loop cannot be made.
    init(configuration: TracingConfiguration, resource: TraceResource, metrics: GatewayMetrics, logger: Logger) throws(TransportError) {
        self.configuration = configuration
        self.resource = resource
        self.logger = logger
        let url = URLComponents(string: configuration.endpoint)
        let withoutQuery = url.map { components -> String in
            var copy = components
            copy.query = nil
            copy.percentEncodedPath = ""
            return copy.string ?? configuration.endpoint
        }
        do {
            endpoint = try OriginEndpoint(url: withoutQuery ?? configuration.endpoint)
        } catch {
            throw TransportError("the traces endpoint \(error.description)")
        }
        let path = url?.percentEncodedPath ?? ""
        target = (path.isEmpty ? "/" : path) + (url?.percentEncodedQuery.map { "?" + $0 } ?? "")
        tls = endpoint.scheme == .https ? try TLSContext.client(caFile: configuration.caFile) : nil
        loop = try EventLoop(name: "tracing", priority: .idle)
        exported = metrics.counter("gateway_trace_spans_exported_total")
        droppedFull = metrics.counter("gateway_trace_spans_dropped_total", [("reason", "queue_full")])
        droppedFailed = metrics.counter("gateway_trace_spans_dropped_total", [("reason", "export_failed")])
        failedExports = metrics.counter("gateway_trace_exports_failed_total")
        let queue = SpanQueue(capacity: configuration.maxQueueSize, batchSize: configuration.maxExportBatchSize)
        let wakeLoop = loop
        // The tracer wakes the exporter through its loop; `self` is not captured, so the
        // tracer (held by every request loop) keeps no exporter alive.
        let box = WeakExporter()
        tracer = Tracer(sampler: configuration.sampler, queue: queue, recordsEndUser: configuration.recordsEndUser) {
            wakeLoop.post { box.exporter?.exportNext() }
        }
        box.exporter = self
    }

    /// Starts the loop and the schedule.
    func start() {
        loop.start()
        var clientConfiguration = OriginClientConfiguration()
        clientConfiguration.requestTimeout = configuration.requestTimeout
        clientConfiguration.maxConnectionsPerLoop = 2
        clientConfiguration.maxWaitersPerLoop = 4
        clientConfiguration.maxResponseBytes = 64 * 1024
        loop.execute { [self, clientConfiguration] in
            client = OriginClient(loop: loop, configuration: clientConfiguration, tls: tls)
            tick()
        }
        logger.info(
            "exporting traces", metadata: ["endpoint": .string(loggedEndpoint),
            "protocol": .string(configuration.format.rawValue), "sampler": .string(configuration.sampler.description)])
    }

    /// Sends what is queued (one attempt per batch, no retries), then stops the loop; waits
    /// at most the request timeout, capped at 5 s. Call once the server has stopped, so the
    /// last requests' spans are among them.
    func shutdown() {
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            stopping = true
            finished = { done.signal() }
            exportNext()
        }
        _ = done.wait(timeout: .now() + .milliseconds(Int(min(configuration.requestTimeout, .seconds(5)).components.seconds * 1000 + 1)))
        loop.stop()
        loop.join()
    }

    /// Every schedule delay: a batch of what waits, however few.
    private func tick() {
        exportNext(evenIfShort: true)
        loop.schedule(after: configuration.scheduleDelay) { [self] in
            if !stopping { tick() }
        }
    }

    /// Starts sending the next batch unless one is in flight: a whole one, or whatever waits
    /// when `evenIfShort` (the schedule) or the exporter is stopping.
    func exportNext(evenIfShort: Bool = false) {
        countDropped()
        guard batch == nil, let client else { return }
        let queue = tracer.queue
        if takenIndex == taken.count {
            guard evenIfShort || stopping || queue.count >= queue.batchSize else { return }
            taken.removeAll(keepingCapacity: true)
            takenIndex = 0
            queue.drain(into: &taken)
        }
        let end = min(taken.count, takenIndex + queue.batchSize)
        let spans = taken[takenIndex..<end]
        takenIndex = end
        guard !spans.isEmpty else {
            if stopping { finished?() }
            return
        }
        let encoded = configuration.format == .protobuf
            ? OTLPProtobuf.exportRequest(spans, resource: resource) : OTLPJSON.exportRequest(spans.map(\.record), resource: resource)
        batch = Batch(
            count: spans.count, body: configuration.gzip ? Gzip.compress(encoded, level: 1) : encoded, retry: ExportRetry(deadline: configuration.exportTimeout),
            firstAttempt: .now)
        send(with: client)
    }

    private func send(with client: OriginClient) {
        guard let batch else { return }
        var headers: HTTPHeaders = ["Content-Type": configuration.format.contentType]
        if configuration.gzip { headers.add("Content-Encoding", "gzip") }
        for header in configuration.headers { headers.add(header.name, header.value) }
        let request = OriginRequest(method: .post, target: target, headers: headers, body: batch.body, requestID: RequestID.generate(), maxResponseBytes: 64 * 1024)
        client.send(request, to: endpoint) { [self] result in answered(result) }
    }

    private func answered(_ result: Result<OriginResponse, OriginFailure>) {
        guard var current = batch else { return }
        let outcome: ExportRetry.Outcome
        switch result {
        case .success(let response) where (200..<300).contains(response.status):
            outcome = .exported
        case .success(let response):
            outcome = .status(response.status, retryAfter: response.headers["Retry-After"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        case .failure:
            outcome = .unreachable
        }
        let decision = current.retry.decide(outcome, sinceFirstAttempt: .now - current.firstAttempt, jitter: Double.random(in: 0...1))
        switch decision {
        case .done:
            exported.increment(by: Int64(current.count))
            if failing {
                logger.notice("exporting traces again", metadata: ["failed_exports": .stringConvertible(failuresInRun)])
                failing = false
                failuresInRun = 0
            }
            batch = nil
            exportNext()
        case .retry(let wait) where !stopping:
            batch = current
            noteFailure(Self.describe(result))
            loop.schedule(after: wait) { [self] in
                if let client { send(with: client) }
            }
        case .retry, .drop:
            failedExports.increment()
            droppedFailed.increment(by: Int64(current.count))
            if case .drop(let reason) = decision { noteFailure(reason) } else { noteFailure(Self.describe(result)) }
            batch = nil
            exportNext()
        }
    }

    /// Logs the first failure of a run, then counts quietly until an export works.
    private func noteFailure(_ reason: String) {
        failuresInRun += 1
        guard !failing else { return }
        failing = true
        logger.warning(
            "cannot export traces; retrying, and dropping spans the queue cannot hold",
            metadata: ["reason": .string(reason), "endpoint": .string(loggedEndpoint)])
    }

    /// The endpoint as logs show it: without user information or query, either of which
    /// may hold a key.
    private var loggedEndpoint: String {
        let text = OriginEndpoint.withoutUserInformation(configuration.endpoint)
        return text.firstIndex(of: "?").map { String(text[..<$0]) + "?…" } ?? text
    }

    private static func describe(_ result: Result<OriginResponse, OriginFailure>) -> String {
        switch result {
        case .success(let response): "the collector answered \(response.status)"
        case .failure(let failure): "the collector could not be reached: \(failure)"
        }
    }

    /// Adds the spans the queue dropped since the last look to the counter.
    private func countDropped() {
        let dropped = tracer.queue.dropped
        if dropped > countedDropped {
            droppedFull.increment(by: Int64(dropped - countedDropped))
            countedDropped = dropped
        }
    }
}

/// The exporter, held weakly by the tracer's wake-up.
private final class WeakExporter: @unchecked Sendable {
    weak var exporter: TraceExporter?
}
