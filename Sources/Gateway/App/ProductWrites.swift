import HTTPCodec
import Dispatch
import GatewayModels

/// `POST /v1/products`, `PATCH /v1/products/{id}` and `DELETE /v1/products/{id}`: client
/// input validated in full (every field error at once, nothing sent to the origin when any),
/// translated to the origin's form, sent exactly once (writes are never retried), answered
/// in the contract, and followed by invalidation of every cached page the write could make
/// untrue.
///
/// Handlers are `deferred`, on the loop that owns the request; decoding and validation run
/// off the loop (base64 and image checks are CPU work), the origin request on the loop.
public final class ProductWrites: Sendable {
    let endpoint: OriginEndpoint
    let generation: OriginGeneration
    let limits: DraftLimits
    let reads: ProductReads
    /// Rewrites image URLs in the products written back, as the read path does.
    let imageURL: ImageURLRewriter
    private let idempotency = IdempotencyStore()

    public init(
        endpoint: OriginEndpoint, generation: OriginGeneration, limits: DraftLimits = DraftLimits(), reads: ProductReads,
        imageURL: @escaping ImageURLRewriter = identityImageURL
    ) {
        self.endpoint = endpoint
        self.generation = generation
        self.limits = limits
        self.reads = reads
        self.imageURL = imageURL
    }

    private enum Operation: Sendable {
        case create(ProductDraft)
        case update(id: Int64, ProductPatch)
        case delete(id: Int64, ProductDeletion)
    }

    /// Adds the three write routes to `router`.
    public func register(in router: inout Router) {
        router.add(.post, "/v1/products", .deferred { [self] request, context, responder in
            handle(request, context: context, responder: responder) { [self] body, contentType throws(ValidationFailure) in
                try .create(MediaType.isJSON(contentType)
                    ? ProductDraft.decode(json: body, limits: limits)
                    : ProductDraft.decode(multipart: body, contentType: contentType, limits: limits))
            }
        })
        router.add(.patch, "/v1/products/{id}", .deferred { [self] request, context, responder in
            guard let id = ProductID.parse(context) else { return responder.fail(ProductID.invalid) }
            handle(request, context: context, responder: responder) { [self] body, contentType throws(ValidationFailure) in
                try .update(id: id, MediaType.isJSON(contentType)
                    ? ProductPatch.decode(json: body, limits: limits)
                    : ProductPatch.decode(multipart: body, contentType: contentType, limits: limits))
            }
        })
        router.add(.delete, "/v1/products/{id}", .deferred { [self] request, context, responder in
            guard let id = ProductID.parse(context) else { return responder.fail(ProductID.invalid) }
            handle(request, context: context, responder: responder, jsonOnly: true) { [self] body, _ throws(ValidationFailure) in
                .delete(id: id, try ProductDeletion.decode(json: body, limits: limits))
            }
        })
    }

    static func isMultipart(_ contentType: String) -> Bool {
        MediaType.essence(of: contentType) == "multipart/form-data"
    }

    /// Checks the media type, decodes off the loop, applies `Idempotency-Key`, sends.
    private func handle(
        _ request: GatewayRequest, context: RouteContext, responder: Responder, jsonOnly: Bool = false,
        decode: @escaping @Sendable ([UInt8], String) throws(ValidationFailure) -> Operation
    ) {
        let contentType = request.headers["Content-Type"] ?? ""
        guard MediaType.isJSON(contentType) || (!jsonOnly && Self.isMultipart(contentType)) else {
            return responder.fail(GatewayError.unsupportedMediaType(
                jsonOnly ? "Send the body as application/json." : "Send the body as application/json or multipart/form-data."))
        }
        guard let origin = context.origin else {
            return responder.fail(GatewayError.serviceUnavailable("No origin is configured."))
        }
        let loop = origin.loop
        DispatchQueue.global().async { [self] in
            let operation: Operation
            do throws(ValidationFailure) {
                operation = try decode(request.body, contentType)
            } catch {
                return responder.fail(GatewayError.invalidFields(error.errors))
            }
            loop.execute { [self] in
                guard let key = request.headers["Idempotency-Key"], request.method == .post else {
                    return send(operation, request: request, origin: origin) { response, _ in responder.send(response) }
                }
                guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    return responder.fail(GatewayError.invalidFields([
                        FieldError(field: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters.")
                    ]))
                }
                let fingerprint = EntityTag.strong(for: Array(request.path.utf8) + [0] + request.body)
                switch idempotency.claim(key, fingerprint: fingerprint, now: .now, waiter: { responder.send(Self.replayed($0)) }) {
                case .first:
                    send(operation, request: request, origin: origin) { [self] response, reachedOrigin in
                        // A request that never reached the origin created nothing: a retry
                        // with the same key runs afresh.
                        if reachedOrigin {
                            idempotency.finish(key, response: response, now: .now)
                        } else {
                            idempotency.release(key, response: response)
                        }
                        responder.send(response)
                    }
                case .replay(let response):
                    responder.send(Self.replayed(response))
                case .waiting:
                    break
                case .mismatch:
                    responder.fail(GatewayError(
                        status: 422, type: GatewayError.typePrefix + "idempotency-key-reused", title: "Idempotency key reused",
                        detail: "This Idempotency-Key was used with a different request in the last 24 hours."))
                }
            }
        }
    }

    private static func replayed(_ response: GatewayResponse) -> GatewayResponse {
        var response = response
        response.headers.set("Idempotent-Replayed", "true")
        return response
    }

    /// Sends `operation` to the origin once and turns the outcome into the client's
    /// response. On the loop thread; `completion` runs there, with whether the request may
    /// have reached the origin.
    private func send(
        _ operation: Operation, request: GatewayRequest, origin: OriginClient, completion: @escaping (GatewayResponse, Bool) -> Void
    ) {
        let originRequest: OriginRequest
        let productID: Int64?
        do throws(ValidationFailure) {
            (originRequest, productID) = try self.originRequest(for: operation, requestID: request.requestID)
        } catch {
            return completion(GatewayError.invalidFields(error.errors).response(requestID: request.requestID), false)
        }
        let locale = reads.configuration.locales.resolve(acceptLanguage: request.headers["Accept-Language"])
        origin.send(originRequest, to: endpoint) { [self] result in
            let reachedOrigin: Bool
            switch result {
            case .failure(.connectFailed), .failure(.overloaded): reachedOrigin = false
            default: reachedOrigin = true
            }
            completion(
                response(for: result, operation: operation, productID: productID, locale: locale, requestID: request.requestID),
                reachedOrigin)
        }
    }

    private func originRequest(for operation: Operation, requestID: String) throws(ValidationFailure) -> (OriginRequest, Int64?) {
        let method: HTTPMethod
        let target: String
        let body: OriginRequestBody
        let id: Int64?
        switch operation {
        case .create(let draft):
            (method, target, body, id) = (.post, "/item", draft.originBody(for: generation), nil)
        case .update(let productID, let patch):
            (method, target, body, id) = (.patch, generation.detailTarget(id: productID), try patch.originBody(for: generation), productID)
        case .delete(let productID, let deletion):
            (method, target, body, id) = (.delete, generation.detailTarget(id: productID), deletion.v1Body(), productID)
        }
        let request = OriginRequest(
            method: method, target: target, headers: ["Content-Type": body.contentType], body: body.bytes, requestID: requestID)
        return (request, id)
    }

    /// The client's answer to the origin's: the product in the contract (201 with
    /// `Location` for a create), the origin's own 4xx with its reason, 502 for anything
    /// else, and 504 when the outcome is unknown. Successful writes invalidate the cache.
    private func response(
        for result: Result<OriginResponse, OriginFailure>, operation: Operation, productID: Int64?, locale: ClientLocale,
        requestID: String
    ) -> GatewayResponse {
        switch result {
        case .failure(.timedOut):
            reads.invalidate(productID: productID)
            return GatewayError.gatewayTimeout(
                "The origin did not answer in time, so whether the change was made is unknown. Check the product before trying again."
            ).response(requestID: requestID)
        case .failure(let failure):
            return failure.gatewayError.response(requestID: requestID)
        case .success(let response) where (200..<300).contains(response.status):
            if response.body.isEmpty, case .delete = operation {
                reads.invalidate(productID: productID)
                return GatewayResponse(status: 204)
            }
            guard let detail = try? generation.mapDetail(bytes: response.body, locale: locale, imageURL: imageURL) else {
                reads.invalidate(productID: productID)
                return GatewayError.badGateway("The origin accepted the change, but its answer could not be read.").response(requestID: requestID)
            }
            reads.invalidate(productID: detail.summary.id)
            var answer = GatewayResponse.json(detail.jsonBytes(), status: 200)
            if case .create = operation {
                answer.status = 201
                answer.headers.set("Location", "/v1/products/\(detail.summary.id)")
            }
            answer.headers.set("Cache-Control", "no-store")
            return answer
        case .success(let response) where (400..<500).contains(response.status):
            let reason = (try? V1ErrorBody(json: response.body))?.reason ?? "The origin refused the request."
            return GatewayError(status: response.status, type: GatewayError.typePrefix + "origin-refused", title: HTTPStatus.reasonPhrase(response.status), detail: reason)
                .response(requestID: requestID)
        case .success(let response):
            return GatewayError.badGateway("The origin answered \(response.status).").response(requestID: requestID)
        }
    }
}
