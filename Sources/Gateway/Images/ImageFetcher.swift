import Dispatch
import Foundation
import GatewaySupport
import HTTPInterface
import ImageProcessing

/// What fetching one image produced.
enum ImageFetchOutcome: Sendable {
    /// A verified image: its bytes and sniffed type, as a cache entry.
    case image(CachedPage)
    /// 403 (destination not allowed), 404 (upstream 404) or 502 (anything else). Not cached.
    case failure(GatewayError)
}

/// Fetches images through a loop's `OriginClient`, without ever becoming an open proxy.
///
/// For each destination (the token's URL, then each redirect): http or https only, an
/// allowed host and port (`ImageHostPolicy`), the host resolved off the loop and **every**
/// address checked, then the connection made to the checked address itself
/// (`OriginEndpoint.connectAddress`) while `Host`, SNI and the certificate check keep the
/// name. So a name that resolves differently a moment later (DNS rebinding) cannot move the
/// connection to an address that was not checked. At most `maxRedirects` redirects, each
/// checked the same way; bodies above `maxBytes` are refused by the client as they arrive;
/// only JPEG, PNG, GIF and WebP, recognised by their first bytes.
struct ImageFetcher: Sendable {
    let policy: ImageHostPolicy
    let maxBytes: Int
    let maxRedirects: Int
    /// How long resolving a host may take before the fetch answers 502 (the resolver's own
    /// retries can take much longer; its thread finishes on its own).
    var resolveTimeout: Duration = .seconds(2)
    /// Host name to addresses; blocking, so it runs on a global queue.
    var resolve: @Sendable (String) -> [ResolvedAddress] = AddressResolver.resolve
    /// One breaker per image host: while a host's is open nothing is sent to it and the fetch
    /// answers 503 at once. nil: none.
    var breakers: HostBreakers?

    /// What an origin image may be.
    static let sourceFormats: Set<ImageFormat> = [.jpeg, .png, .gif, .webp]

    static let notAllowed = GatewayError(status: 403, detail: "The image's address is not allowed.")

    /// Fetches `url`. Starts on `client`'s loop; `completion` runs on that loop, once.
    /// `trace`: the request's, in which each request to the host is recorded as a client span
    /// (when the trace is recorded); it is never sent to the host.
    func fetch(
        _ url: String, client: any OriginSending, requestID: String, trace: TraceContext? = nil,
        completion: @escaping @Sendable (ImageFetchOutcome) -> Void
    ) {
        guard let destination = ImageDestination(url: url) else {
            completion(.failure(Self.notAllowed))
            return
        }
        fetch(destination, redirectsLeft: maxRedirects, client: client, requestID: requestID, trace: trace, completion: completion)
    }

    private func fetch(
        _ destination: ImageDestination, redirectsLeft: Int, client: any OriginSending, requestID: String, trace: TraceContext?,
        completion: @escaping @Sendable (ImageFetchOutcome) -> Void
    ) {
        guard let internalAllowed = policy.internalAddressesAllowed(for: destination) else {
            completion(.failure(Self.notAllowed))
            return
        }
        let breaker = breakers?.breaker(for: "\(destination.host.lowercased()):\(destination.port)")
        if let breaker, case .refused(let retryAfter) = breaker.admit(now: .now) {
            completion(.failure(breaker.refusal(retryAfter: retryAfter, detail: CircuitBreaker.imageHostRefusal)))
            return
        }
        let resolve = self.resolve
        // Whichever ends first, the resolution or the timer, takes the completion; the timer
        // then holds only the emptied box (not the fetch's waiters) until its deadline.
        let pending = Locked<(@Sendable (ImageFetchOutcome) -> Void)?>(completion)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(resolveTimeout / .nanoseconds(1)))) {
            guard let timedOut = pending.withLock({ $0.take() }) else { return }
            client.loop.execute { timedOut(.failure(.badGateway("The image's host was not resolved in time."))) }
        }
        DispatchQueue.global().async {
            let addresses = resolve(destination.host)
            guard pending.withLock({ $0.take() }) != nil else { return }
            client.loop.execute {
                guard let address = addresses.first else {
                    completion(.failure(.badGateway("The image's host could not be resolved.")))
                    return
                }
                guard internalAllowed || !addresses.contains(where: \.isInternal) else {
                    completion(.failure(Self.notAllowed))
                    return
                }
                let endpoint = OriginEndpoint(
                    scheme: destination.scheme, host: destination.host, port: destination.port, connectAddress: address.description)
                var request = OriginRequest(
                    method: .get, target: destination.target, headers: ["Accept": "image/*"], requestID: requestID,
                    maxResponseBytes: maxBytes, trace: trace)
                request.propagatesTrace = false
                let send: (@escaping (Result<OriginResponse, OriginFailure>) -> Void) -> Void = { answered in
                    guard let breaker else { return client.send(request, to: endpoint, completion: answered) }
                    breaker.send(request, via: client, to: endpoint, completion: answered)
                }
                send { result in
                    switch result {
                    case .success(let response):
                        if [301, 302, 303, 307, 308].contains(response.status) {
                            guard redirectsLeft > 0, let location = response.headers["Location"],
                                let next = ImageDestination(url: location.trimmingSpaces(), relativeTo: destination.url)
                            else {
                                completion(.failure(.badGateway("The image's redirect could not be followed.")))
                                return
                            }
                            fetch(next, redirectsLeft: redirectsLeft - 1, client: client, requestID: requestID, trace: trace, completion: completion)
                        } else {
                            completion(outcome(of: response))
                        }
                    case .failure(.responseTooLarge):
                        completion(.failure(.badGateway("The image is larger than \(maxBytes) bytes.")))
                    case .failure(let failure):
                        completion(.failure(.badGateway(failure.gatewayError.detail)))
                    }
                }
            }
        }
    }

    private func outcome(of response: OriginResponse) -> ImageFetchOutcome {
        switch response.status {
        case 200:
            guard response.body.count <= maxBytes else { return .failure(.badGateway("The image is larger than \(maxBytes) bytes.")) }
            let declared = response.headers["Content-Type"]?.trimmingSpaces().lowercased() ?? ""
            guard declared.hasPrefix("image/"), let type = ImageFormat(sniffing: response.body), Self.sourceFormats.contains(type) else {
                return .failure(.badGateway("The upstream answer is not a JPEG, PNG, GIF or WebP image."))
            }
            return .image(
                CachedPage(
                    status: 200, contentType: type.contentType, identity: response.body, gzip: nil, storedAt: .now,
                    timeToLive: .seconds(31_536_000)))
        case 404, 410:
            return .failure(.notFound("No image at this address."))
        default:
            return .failure(.badGateway("The image's server answered \(response.status)."))
        }
    }
}
