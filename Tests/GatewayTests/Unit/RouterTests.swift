@testable import Gateway
import GatewayModels
@testable import HTTPInterface
import Logging
@testable import Routing
import HTTPCodec
import Testing
import GatewaySupport

@Suite struct RouterTests {
    private func router() -> Router {
        var router = Router()
        router.add(.get, "/v1/products", .immediate { _, _ in GatewayResponse(status: 200, body: Array("list".utf8)) })
        router.add(.get, "/v1/products/{id}", .immediate { _, context in
            GatewayResponse(status: 200, body: Array("detail \(context.parameters["id"]!)".utf8))
        })
        router.add(.patch, "/v1/products/{id}", .immediate { _, _ in GatewayResponse(status: 200) })
        router.add(.delete, "/v1/products/{id}", .immediate { _, _ in GatewayResponse(status: 204) })
        return router
    }

    /// Dispatches and returns the one response.
    private func dispatch(_ method: HTTPMethod, _ path: String) -> GatewayResponse {
        let sink = CapturingSink()
        let request = GatewayRequest(method: method, path: path, requestID: "req-1")
        router().dispatch(request, logger: Logger(label: "test"), responder: Responder(sink: sink, requestID: "req-1"))
        let responses = sink.responses
        #expect(responses.count == 1)
        return responses[0]
    }

    /// The upload routes the decoders match come from the routes that declare the upload
    /// body limit: a literal path, or the literal segments before a last parameter.
    @Test func uploadRoutesAreTheRoutesThatDeclareTheUploadLimit() {
        var router = router()
        let write = RouteHandler.immediate { _, _ in GatewayResponse(status: 201) }
        router.add(.post, "/v1/products", bodyLimit: .upload, write)
        router.add(.patch, "/v1/products/{id}", bodyLimit: .upload, write)
        router.add(.delete, "/v1/products/{id}", write)
        #expect(router.uploadRoutes == [
            UploadRoute(method: "POST", path: "/v1/products"), UploadRoute(method: "PATCH", path: "/v1/products", oneSegmentUnder: true),
        ])
        #expect(Router().uploadRoutes.isEmpty)
    }

    @Test func routesLiteralAndParameterPaths() {
        #expect(dispatch(.get, "/v1/products").body == Array("list".utf8))
        #expect(dispatch(.get, "/v1/products/42").body == Array("detail 42".utf8))
        #expect(dispatch(.get, "/v1/products/%ED%95%9C").body == Array("detail 한".utf8))
        #expect(dispatch(.head, "/v1/products/42").body == Array("detail 42".utf8))
        #expect(dispatch(.patch, "/v1/products/42").status == 200)
    }

    @Test func unknownPathsAre404ProblemJSON() throws {
        for path in ["/v2/products", "/v1/products/", "/v1//products", "/v1/products/a%2Fb", "/v1/products/..", "/v1/products/%zz"] {
            let response = dispatch(.get, path)
            #expect(response.status == 404, "\(path)")
            #expect(response.headers["Content-Type"] == "application/problem+json")
        }
    }

    @Test func wrongMethodIs405WithAllow() {
        let response = dispatch(.post, "/v1/products/42")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, PATCH, DELETE, OPTIONS")
        #expect(dispatch(.put, "/v1/products").headers["Allow"] == "GET, HEAD, OPTIONS")
    }

    /// `Allow` names every route whose pattern matches the path, whatever its parameters
    /// are called.
    @Test func allowCountsEveryRouteOnThePath() {
        var router = Router()
        router.add(.get, "/api/products/{id}", .immediate { _, _ in GatewayResponse(status: 200) })
        router.add(.delete, "/api/products/{token}", .immediate { _, _ in GatewayResponse(status: 204) })
        let sink = CapturingSink()
        router.dispatch(GatewayRequest(method: .options, path: "/api/products/5", requestID: "r"), logger: Logger(label: "t"), responder: Responder(sink: sink, requestID: "r"))
        router.dispatch(GatewayRequest(method: .put, path: "/api/products/5", requestID: "r"), logger: Logger(label: "t"), responder: Responder(sink: sink, requestID: "r"))
        #expect(sink.responses.map(\.status) == [204, 405])
        #expect(sink.responses.map { $0.headers["Allow"] } == ["GET, HEAD, DELETE, OPTIONS", "GET, HEAD, DELETE, OPTIONS"])
    }

    @Test func optionsOnAKnownPathIs204WithAllow() {
        let response = dispatch(.options, "/v1/products/7")
        #expect(response.status == 204)
        #expect(response.headers["Allow"] == "GET, HEAD, PATCH, DELETE, OPTIONS")
        #expect(response.body.isEmpty)
        #expect(dispatch(.options, "/nowhere").status == 404)
    }

    @Test func unmatchedHandlerTakesWhatWouldBe404Or405() {
        var router = router()
        router.unmatched = .immediate { request, context in
            GatewayResponse(status: 418, body: Array("\(request.method.rawValue) \(request.path) \(context.parameters.count)".utf8))
        }
        let sink = CapturingSink()
        for (method, path) in [(HTTPMethod.get, "/nowhere"), (.post, "/v1/products/42"), (.get, "/v1//products"), (.options, "/nowhere")] {
            router.dispatch(GatewayRequest(method: method, path: path, requestID: "r"), logger: Logger(label: "t"), responder: Responder(sink: sink, requestID: "r"))
        }
        router.dispatch(GatewayRequest(method: .get, path: "/v1/products/7", requestID: "r"), logger: Logger(label: "t"), responder: Responder(sink: sink, requestID: "r"))
        router.dispatch(GatewayRequest(method: .options, path: "/v1/products/7", requestID: "r"), logger: Logger(label: "t"), responder: Responder(sink: sink, requestID: "r"))
        #expect(sink.responses.map(\.status) == [418, 418, 418, 418, 200, 204])
        #expect(sink.responses.prefix(4).map { String(decoding: $0.body, as: UTF8.self) }
            == ["GET /nowhere 0", "POST /v1/products/42 0", "GET /v1//products 0", "OPTIONS /nowhere 0"])
    }

    @Test func resolutionLabelsArePatternsNeverRawPaths() {
        let router = router()
        func label(_ method: HTTPMethod, _ path: String) -> String {
            router.label(for: GatewayRequest(method: method, path: path, requestID: "r"))
        }
        #expect(label(.get, "/v1/products/42") == "/v1/products/{id}")
        #expect(label(.post, "/v1/products/42") == "/v1/products/{id}")
        #expect(label(.options, "/v1/products") == "/v1/products")
        #expect(label(.get, "/v1/products/42/extra") == "unmatched")
        #expect(label(.get, "/../etc/passwd") == "unmatched")
    }

    @Test func thrownErrorsBecomeProblems() {
        var router = Router()
        router.add(.get, "/boom", .immediate { _, _ in throw GatewayError.gatewayTimeout("The origin did not answer within 5 s.") })
        router.add(.get, "/crash", .immediate { _, _ in throw CancellationError() })
        let sink = CapturingSink()
        router.dispatch(GatewayRequest(method: .get, path: "/boom", requestID: "r"), logger: Logger(label: "t"), responder: Responder(sink: sink, requestID: "r"))
        router.dispatch(GatewayRequest(method: .get, path: "/crash", requestID: "r"), logger: Logger(label: "t"), responder: Responder(sink: sink, requestID: "r"))
        #expect(sink.responses.map(\.status) == [504, 500])
        #expect(String(decoding: sink.responses[1].body, as: UTF8.self)
            == #"{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"The gateway failed to handle this request.","requestId":"r"}"#)
    }
}

/// A response sink that keeps what it is given.
final class CapturingSink: ResponseSink {
    private let stored = Locked<[GatewayResponse]>([])
    var responses: [GatewayResponse] { stored.withLock { $0 } }
    func deliver(_ response: GatewayResponse) { stored.withLock { $0.append(response) } }
}
