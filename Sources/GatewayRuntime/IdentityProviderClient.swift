import Gateway
import GatewaySupport
import HTTPInterface
import Tracing
import Transport

/// The GETs to the identity provider (discovery document, key set): an origin client of its
/// own on the first loop, trusting `--auth-ca-file`'s CAs (or the system's), so the provider's
/// connections never mix with the origin's and no request to it blocks a loop. Redirects are
/// not followed. Thread-safe: `get` hops to the loop; the client lives on its thread.
///
/// Ownership: `client` is created and closed on `loop`'s thread (``start()``, ``close()``).
final class IdentityProviderClient: KeySetFetching, LoopAttachment, @unchecked Sendable {
    private let loop: EventLoop
    private let configuration: OriginClientConfiguration
    private let tls: TLSContext
    private let keys: AuthKeys
    /// Where the key-set loads' spans go; nil without tracing.
    private let tracer: Tracer?
    /// Touched on `loop`'s thread only.
    private var client: OriginClient?

    init(loop: EventLoop, configuration: OriginClientConfiguration, tls: TLSContext, keys: AuthKeys, tracer: Tracer? = nil) {
        self.tracer = tracer
        self.loop = loop
        self.configuration = configuration
        self.tls = tls
        self.keys = keys
    }

    /// Called once the loop runs (from the thread that started it): the client is made on
    /// the loop's thread (its resolver belongs to the loop), then the keys' first load.
    func start() {
        loop.execute { [self] in
            client = OriginClient(loop: loop, configuration: configuration, tls: tls, tracer: tracer)
            keys.start(fetcher: self, loop: loop, tracer: tracer)
        }
    }

    func close() {
        client?.close()
        client = nil
    }

    func get(
        _ target: String, from endpoint: OriginEndpoint, maxBytes: Int, trace: TraceContext?,
        completion: @escaping @Sendable (Result<OriginResponse, OriginFailure>) -> Void
    ) {
        var request = OriginRequest(
            method: .get, target: target, headers: ["Accept": "application/json"], requestID: RequestID.generate(), maxResponseBytes: maxBytes,
            trace: trace)
        // The identity provider is not the origin: the load is recorded, its trace not sent.
        request.propagatesTrace = false
        loop.execute { [self, request] in
            guard let client else { return completion(.failure(.connectionLost)) }
            client.send(request, to: endpoint) { completion($0) }
        }
    }
}
