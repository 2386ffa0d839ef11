import Dispatch
import Logging
import GatewayModels
import HTTPCodec
import HTTPInterface
import Routing
import GatewaySupport

/// `POST /v1/products`, `PATCH /v1/products/{id}` and `DELETE /v1/products/{id}`: client
/// input validated in full (every field error at once, nothing sent to the origin when any),
/// translated to the origin's form, sent exactly once (writes are never retried), answered
/// in the contract, and followed by invalidation of every cached page the write could make
/// untrue.
///
/// On v2/v2b the contract's `password` is the vendor secret, and the vendor `identifier`
/// header comes from the request's `Vendor-Identifier` or else `--origin-vendor-identifier`
/// (neither is ever logged); with `--vendor-credentials-file`, a signed-in caller's writes
/// are made with the credentials the gateway holds for the token's vendor instead
/// (``WriteCredentials``), and the origin refusing those is answered 502. Those origins need more than one request for some writes: an
/// update that changes only one of the two prices first reads the product from the origin
/// (never from the cache) to compute the discount amount; a delete asks for the product's
/// delete secret (v2 `POST …/secret`) or address (v2b `POST …/archived`), checks the answer,
/// then deletes. An answer that fails the check ends the write with 502 and nothing more is
/// requested.
///
/// Uploaded images are rendered again before they are sent (``UploadFitter``: metadata
/// stripped, HEIC converted, made to fit the origin's byte limit) when a `preparer` is given.
///
/// Handlers are `deferred`, on the loop that owns the request; decoding and validation run
/// off the loop (base64 and image rendering are CPU work: creates and updates on the image
/// workers, whose bound answers 503 when they are full), the origin requests on the loop.
public final class ProductWrites: Sendable {
    let endpoint: OriginEndpoint
    let generation: OriginGeneration
    /// The v2/v2b vendor identifier when the request sends none.
    let vendorIdentifier: String?
    let limits: DraftLimits
    let reads: ProductReads
    /// Rewrites image URLs in the products written back, as the read path does.
    let imageURL: ImageURLRewriter
    /// `Idempotency-Key` records: this process's, or the replicas' shared Redis.
    let idempotency: any IdempotencyLedger
    /// Makes uploads fit the origin; nil: uploads are only checked.
    let preparer: (any UploadImagePreparer)?
    /// Where creates and updates are decoded (their images rendered); nil: a global queue.
    let workers: ImageWorkers?
    /// v2/v2b credentials held for signed-in callers; nil: the client sends the secret.
    let serverCredentials: ServerVendorCredentials?
    /// The origin's circuit breaker (the reads' too); while it is open a write is answered 503
    /// unsent.
    var breaker: CircuitBreaker? { reads.breaker }

    /// - Parameter idempotency: where `Idempotency-Key` records live; in this process when nil.
    init(
        endpoint: OriginEndpoint, generation: OriginGeneration, vendorIdentifier: String? = nil, limits: DraftLimits = DraftLimits(),
        reads: ProductReads, imageURL: @escaping ImageURLRewriter = identityImageURL, idempotency: (any IdempotencyLedger)? = nil,
        preparer: (any UploadImagePreparer)? = nil, workers: ImageWorkers? = nil, serverCredentials: ServerVendorCredentials? = nil
    ) {
        self.serverCredentials = serverCredentials
        self.preparer = preparer
        self.workers = workers
        self.idempotency = idempotency ?? LocalIdempotency(waitBound: .seconds(6))
        self.endpoint = endpoint
        self.generation = generation
        self.vendorIdentifier = vendorIdentifier
        self.limits = limits
        self.reads = reads
        self.imageURL = imageURL
    }

    private enum Operation: Sendable {
        case create(ProductDraft)
        case update(id: Int64, ProductPatch)
        case delete(id: Int64, ProductDeletion)

        /// The password (v2/v2b: the vendor secret) the client sent; empty when it sent none
        /// (only writes made with server-held credentials may).
        var password: String {
            switch self {
            case .create(let draft): draft.password
            case .update(_, let patch): patch.password
            case .delete(_, let deletion): deletion.password
            }
        }
    }

    /// Adds the three write routes to `router`.
    public func register(in router: inout Router) {
        router.add(.post, "/v1/products", limit: RateLimitKind.writes.name, bodyLimit: .upload, .deferred { [self] request, context, responder in
            handle(request, context: context, responder: responder, onWorkers: true) { [preparer] body, contentType, limits throws(ValidationFailure) in
                try .create(MediaType.isJSON(contentType)
                    ? ProductDraft.decode(json: body, limits: limits, preparer: preparer)
                    : ProductDraft.decode(multipart: body, contentType: contentType, limits: limits, preparer: preparer))
            }
        })
        router.add(.patch, "/v1/products/{id}", limit: RateLimitKind.writes.name, bodyLimit: .upload, .deferred { [self] request, context, responder in
            guard let id = ProductID.parse(context) else { return responder.fail(ProductID.invalid) }
            handle(request, context: context, responder: responder, onWorkers: true) { [preparer] body, contentType, limits throws(ValidationFailure) in
                try .update(id: id, MediaType.isJSON(contentType)
                    ? ProductPatch.decode(json: body, limits: limits, preparer: preparer)
                    : ProductPatch.decode(multipart: body, contentType: contentType, limits: limits, preparer: preparer))
            }
        })
        router.add(.delete, "/v1/products/{id}", limit: RateLimitKind.writes.name, .deferred { [self] request, context, responder in
            guard let id = ProductID.parse(context) else { return responder.fail(ProductID.invalid) }
            handle(request, context: context, responder: responder, jsonOnly: true) { body, _, limits throws(ValidationFailure) in
                .delete(id: id, try ProductDeletion.decode(json: body, limits: limits))
            }
        })
    }

    static func isMultipart(_ contentType: String) -> Bool {
        MediaType.essence(of: contentType) == "multipart/form-data"
    }

    /// Decides whose credentials the write is made with, checks the media type, decodes off
    /// the loop (on the image workers when `onWorkers` and there are some), applies
    /// `Idempotency-Key`, sends. With server-held credentials the body needs no `password`,
    /// and a delete may have no body at all.
    private func handle(
        _ request: GatewayRequest, context: RouteContext, responder: Responder, jsonOnly: Bool = false, onWorkers: Bool = false,
        decode: @escaping @Sendable ([UInt8], String, DraftLimits) throws(ValidationFailure) -> Operation
    ) {
        let credentials: WriteCredentials?
        let credentialsError: FieldError?
        do throws(WriteCredentials.Stop) {
            credentials = try WriteCredentials.resolve(
                request, generation: generation, server: serverCredentials, fallbackIdentifier: vendorIdentifier)
            credentialsError = nil
        } catch {
            switch error {
            case .refused(let refusal): return responder.fail(refusal)
            case .invalid(let fieldError): (credentials, credentialsError) = (nil, fieldError)
            }
        }
        var writeLimits = limits
        writeLimits.passwordRequired = !(credentials?.isServerHeld ?? false)
        let limits = writeLimits
        let contentType = request.headers["Content-Type"] ?? ""
        let bodiless = jsonOnly && !limits.passwordRequired && request.body.isEmpty
        guard bodiless || MediaType.isJSON(contentType) || (!jsonOnly && Self.isMultipart(contentType)) else {
            return responder.fail(GatewayError.unsupportedMediaType(
                jsonOnly ? "Send the body as application/json." : "Send the body as application/json or multipart/form-data."))
        }
        guard let origin = context.origin else {
            return responder.fail(GatewayError.serviceUnavailable("No origin is configured."))
        }
        let loop = origin.loop
        let work: @Sendable () -> Void = { [self] in
            let operation: Operation
            do throws(ValidationFailure) {
                operation = try decode(request.body, contentType, limits)
            } catch {
                let identifierErrors = credentialsError.map { [$0] } ?? []
                return responder.fail(GatewayError.invalidFields(error.errors + identifierErrors))
            }
            guard let credentials else { return responder.fail(GatewayError.invalidFields(credentialsError.map { [$0] } ?? [])) }
            if let refusal = credentials.refusal(forPassword: operation.password) { return responder.fail(refusal) }
            loop.execute { [self] in
                guard let key = request.headers["Idempotency-Key"], request.method == .post else {
                    return send(operation, request: request, context: context, origin: origin, credentials: credentials) { response, _ in responder.send(response) }
                }
                guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    return responder.fail(GatewayError.invalidFields([
                        FieldError(field: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters.")
                    ]))
                }
                // Scoped by route and credentials (a signed-in caller's: the token's issuer and
                // subject, so two users of one vendor never share keys); the identifier written as
                // is is part of the request: a retry that corrects it is another request. (Hashed,
                // never stored.)
                let vendor = credentials.identifier
                let scope = request.identity.map {
                    IdempotencyRecord.scope(route: "POST /v1/products", issuer: $0.issuer, subject: $0.subject, vendorIdentifier: vendor, key: key)
                } ?? IdempotencyRecord.scope(route: "POST /v1/products", password: operation.password, vendorIdentifier: vendor, key: key)
                let fingerprint = IdempotencyRecord.fingerprint(path: request.path, vendorIdentifier: vendor, body: request.body)
                idempotency.claim(scope: scope, fingerprint: fingerprint, context: context) { [self] claim in
                    switch claim {
                    case .first(let ticket):
                        origin.loop.execute { [self] in
                            send(operation, request: request, context: context, origin: origin, credentials: credentials) { [self] response, reachedOrigin in
                                // A request that never reached the origin created nothing: a retry
                                // with the same key runs afresh.
                                // Answered once the record is written (with replicas: acknowledged),
                                // so a retry after this answer finds it even across a failover.
                                if reachedOrigin {
                                    idempotency.finish(ticket, response: response, context: context) { responder.send(response) }
                                } else {
                                    idempotency.release(ticket, response: response, context: context)
                                    responder.send(response)
                                }
                            }
                        }
                    case .replay(let response): responder.send(Self.replayed(response))
                    case .mismatch: responder.fail(IdempotencyClaim.mismatchError)
                    case .inProgress: responder.fail(IdempotencyClaim.inProgressError)
                    case .unavailable: responder.fail(IdempotencyClaim.unavailableError)
                    }
                }
            }
        }
        if onWorkers, let workers {
            guard workers.submit(work) else { return responder.fail(ImageReads.busy) }
        } else {
            DispatchQueue.global().async(execute: work)
        }
    }

    private static func replayed(_ response: GatewayResponse) -> GatewayResponse {
        var response = response
        response.headers.set("Idempotent-Replayed", "true")
        return response
    }

    /// Sends `operation` to the origin (each request once; a write is never retried) and
    /// turns the outcome into the client's response. On the loop thread; `completion` runs
    /// there, with whether a request that may change something may have reached the origin.
    private func send(
        _ operation: Operation, request: GatewayRequest, context: RouteContext, origin: any OriginSending, credentials: WriteCredentials,
        completion: @escaping @Sendable (GatewayResponse, Bool) -> Void
    ) {
        let requestID = request.requestID
        if let breaker, case .refused(let retryAfter) = breaker.admit(now: .now) {
            // Nothing reached the origin: a retry with the same Idempotency-Key runs afresh.
            reads.metrics.originBreakerRefused("write")
            return completion(breaker.refusal(retryAfter: retryAfter).response(requestID: requestID), false)
        }
        let locale = reads.configuration.locales.resolve(acceptLanguage: request.headers["Accept-Language"])
        let identifier = credentials.identifier
        let secret = credentials.secret(clientPassword: operation.password)
        // Never shown back to the client, should the origin echo them: what the client sent,
        // and every credential the gateway holds (the server-held secret among them).
        let redacted = [identifier, operation.password].compactMap { $0 }.filter { !$0.isEmpty } + (serverCredentials?.store.redactions ?? [])
        let written = WrittenWith(credentials: credentials, logger: context.logger)
        /// Sends the request that makes the change and answers from its outcome. `followed`:
        /// the request goes where the origin said (the second step of a delete), so its
        /// refusal (other than 404) is the origin's fault, not the client's.
        let finalStep: @Sendable (OriginRequest, Int64?, Bool) -> Void = { [self] originRequest, productID, followed in
            reads.send(originRequest, via: origin) { [self] result in
                if followed, case .success(let answer) = result, (400..<500).contains(answer.status), answer.status != 404 {
                    return completion(
                        GatewayError.badGateway("The origin refused the delete address it gave (\(answer.status)).").response(requestID: requestID),
                        true)
                }
                answer(
                    response(
                        for: result, operation: operation, productID: productID, locale: locale, requestID: requestID, redacting: redacted,
                        writtenWith: written),
                    reached: Self.mayHaveReached(result), context: context, completion: completion)
            }
        }
        let fail: @Sendable (GatewayError, Bool) -> Void = { error, reached in completion(error.response(requestID: requestID), reached) }
        switch (generation, operation) {
        case (.v1, .create(let draft)):
            finalStep(originRequest(.post, "/item", draft.originBody(for: .v1), identifier: nil, requestID: requestID, trace: request.trace), nil, false)
        case (.v1, .update(let id, let patch)):
            do throws(ValidationFailure) {
                finalStep(originRequest(.patch, generation.detailTarget(id: id), try patch.originBody(for: .v1), identifier: nil, requestID: requestID, trace: request.trace), id, false)
            } catch {
                fail(GatewayError.invalidFields(error.errors), false)
            }
        case (.v1, .delete(let id, let deletion)):
            finalStep(originRequest(.delete, generation.detailTarget(id: id), deletion.v1Body(), identifier: nil, requestID: requestID, trace: request.trace), id, false)
        case (_, .create(let draft)):
            let body = draft.originBody(for: generation, secret: secret)
            finalStep(originRequest(.post, "/api/products", body, identifier: identifier, requestID: requestID, trace: request.trace), nil, false)
        case (_, .update(let id, let patch)):
            guard patch.images == nil else {
                return fail(GatewayError.invalidFields([FieldError(
                    field: "images", message: "This origin (\(generation.rawValue)) takes no images on update: send the update without images.")]), false)
            }
            let patchWith: @Sendable (CurrentPrices?) -> Void = { [self] current in
                do throws(ValidationFailure) {
                    let body = try patch.originBody(for: generation, secret: secret, current: current)
                    finalStep(originRequest(.patch, generation.detailTarget(id: id), body, identifier: identifier, requestID: requestID, trace: request.trace), id, false)
                } catch {
                    fail(GatewayError.invalidFields(error.errors), false)
                }
            }
            guard patch.needsCurrentPrices(for: generation) else { return patchWith(nil) }
            // The prices as the origin has them now: never the cache, which may be stale.
            reads.send(originRequest(.get, generation.detailTarget(id: id), nil, identifier: nil, requestID: requestID, trace: request.trace), via: origin) {
                [self] result in
                switch result {
                case .success(let answer) where answer.status == 200:
                    guard let detail = try? generation.mapDetail(bytes: answer.body, locale: locale) else {
                        return fail(.badGateway("The origin's product could not be read, so the discount could not be computed; nothing was changed."), false)
                    }
                    patchWith(CurrentPrices(price: detail.summary.price, salePrice: detail.summary.discountedPrice))
                case .success(let answer) where (400..<500).contains(answer.status):
                    let refusal = OriginRefusal(originStatus: answer.status, body: answer.body, redacting: redacted)
                    fail(GatewayError(
                        status: refusal.status, type: GatewayError.typePrefix + "origin-refused", title: HTTPStatus.reasonPhrase(refusal.status),
                        detail: refusal.detail), false)
                case .success(let answer):
                    fail(.badGateway("The origin answered \(answer.status) when asked for the product's prices; nothing was changed."), false)
                case .failure(.timedOut):
                    fail(.gatewayTimeout("The origin did not answer in time when asked for the product's prices; nothing was changed."), false)
                case .failure(let failure):
                    fail(failure.gatewayError, false)
                }
            }
        case (_, .delete(let id, _)):
            let action = generation == .v2 ? "secret" : "archived"
            let ask = originRequest(
                .post, "/api/products/\(id)/\(action)", ProductDeletion(password: secret).v2SecretBody(), identifier: identifier, requestID: requestID,
                trace: request.trace)
            reads.send(ask, via: origin) { [self] result in
                guard case .success(let answer) = result, (200..<300).contains(answer.status) else {
                    return self.answer(
                        response(
                            for: result, operation: operation, productID: id, locale: locale, requestID: requestID, redacting: redacted,
                            writtenWith: written),
                        reached: Self.mayHaveReached(result), context: context, completion: completion)
                }
                let target: String?
                if generation == .v2 {
                    target = OriginDeleteAnswer.productSecret(answer.body).map { "/api/products/\(id)/\($0)" }
                } else {
                    target = OriginDeleteAnswer.archivedTarget(answer.body, basePath: endpoint.basePath)
                }
                guard let target else {
                    return fail(.badGateway(
                        "The origin's answer to POST /api/products/\(id)/\(action) is not a delete address the gateway may follow; nothing more was requested."),
                        true)
                }
                finalStep(originRequest(.delete, target, nil, identifier: identifier, requestID: requestID, trace: request.trace), id, true)
            }
        }
    }

    /// Whose credentials a write went with, and where to log when the origin refuses the
    /// gateway's own.
    private struct WrittenWith: Sendable {
        let credentials: WriteCredentials
        let logger: Logger
    }

    /// The client's answer, and whether (and for which product) the write may have changed
    /// what cached pages show.
    private struct WriteAnswer {
        var response: GatewayResponse
        var drops: PagesToDrop = .none

        init(response: GatewayResponse, drops: PagesToDrop = .none) {
            self.response = response
            self.drops = drops
        }
    }

    private enum PagesToDrop {
        case none
        /// Every list page and the product's details (nil: a new product).
        case product(Int64?)
    }

    /// Answers once every replica's pages that the write made untrue are dropped (or that
    /// could not be done now; see ``ProductReads/invalidate(productID:context:then:)``).
    private func answer(
        _ answer: WriteAnswer, reached: Bool, context: RouteContext, completion: @escaping @Sendable (GatewayResponse, Bool) -> Void
    ) {
        guard case .product(let id) = answer.drops else { return completion(answer.response, reached) }
        let response = answer.response
        reads.invalidate(productID: id, context: context) { completion(response, reached) }
    }

    /// Whether a request may have reached the origin (so a retry with the same
    /// `Idempotency-Key` must not run afresh).
    private static func mayHaveReached(_ result: Result<OriginResponse, OriginFailure>) -> Bool {
        switch result {
        case .failure(.connectFailed), .failure(.overloaded): false
        default: true
        }
    }

    private func originRequest(
        _ method: HTTPMethod, _ target: String, _ body: OriginRequestBody?, identifier: String?, requestID: String, trace: TraceContext
    ) -> OriginRequest {
        var headers: HTTPHeaders = [:]
        if let body { headers.set("Content-Type", body.contentType) }
        if let identifier { headers.set("identifier", identifier) }
        return OriginRequest(method: method, target: target, headers: headers, body: body?.bytes ?? [], requestID: requestID, trace: trace)
    }

    /// The client's answer to the origin's: the product in the contract (201 with
    /// `Location` for a create), the origin's 4xx as ``OriginRefusal`` maps it, 502 for
    /// anything else, and 504 when the outcome is unknown. Successful writes (and unknown
    /// outcomes) say which pages to drop.
    private func response(
        for result: Result<OriginResponse, OriginFailure>, operation: Operation, productID: Int64?, locale: ClientLocale,
        requestID: String, redacting redacted: [String] = [], writtenWith written: WrittenWith
    ) -> WriteAnswer {
        switch result {
        case .failure(let failure) where !Self.mayHaveReached(result):
            // Nothing was sent: nothing changed.
            return WriteAnswer(response: failure.gatewayError.response(requestID: requestID))
        case .failure(let failure):
            // Sent, and then no readable answer: the change may or may not have been made.
            return WriteAnswer(response: GatewayError.outcomeUnknown(failure).response(requestID: requestID), drops: .product(productID))
        case .success(let response) where (200..<300).contains(response.status):
            if response.body.isEmpty, case .delete = operation {
                return WriteAnswer(response: GatewayResponse(status: 204), drops: .product(productID))
            }
            guard let detail = try? generation.mapDetail(bytes: response.body, locale: locale, imageURL: imageURL) else {
                return WriteAnswer(
                    response: GatewayError.badGateway("The origin accepted the change, but its answer could not be read.").response(requestID: requestID),
                    drops: .product(productID))
            }
            var answer = GatewayResponse.json(detail.jsonBytes(), status: 200)
            if case .create = operation {
                answer.status = 201
                answer.headers.set("Location", "/v1/products/\(detail.summary.id)")
            }
            answer.headers.set("Cache-Control", "no-store")
            return WriteAnswer(response: answer, drops: .product(detail.summary.id))
        case .success(let response) where (400..<500).contains(response.status):
            let refusal = OriginRefusal(originStatus: response.status, body: response.body, redacting: redacted)
            if refusal.refusedCredentials, case .server(let vendor, _) = written.credentials {
                // The caller did nothing wrong: the gateway's credentials for its vendor are.
                written.logger.error(
                    "the origin refused the vendor credentials the gateway holds; check --vendor-credentials-file",
                    metadata: ["vendor": .string(vendor), "origin_status": .stringConvertible(response.status), "detail": .string(refusal.detail)])
                return WriteAnswer(response: GatewayError.badGateway(
                    "The origin refused the credentials the gateway holds for this vendor; nothing was changed.").response(requestID: requestID))
            }
            return WriteAnswer(response: GatewayError(
                status: refusal.status, type: GatewayError.typePrefix + "origin-refused", title: HTTPStatus.reasonPhrase(refusal.status),
                detail: refusal.detail
            ).response(requestID: requestID))
        case .success(let response):
            return WriteAnswer(response: GatewayError.badGateway("The origin answered \(response.status).").response(requestID: requestID))
        }
    }
}
