import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
@testable import HTTPInterface
import Logging
@testable import Observability
@testable import Routing
import TestSupport
import Testing
import GatewaySupport

extension IntegrationTests {
    /// What a write puts on the wire to the origin, byte for byte, and what it keeps out of
    /// the logs.
    @Suite struct WriteRecording {
        /// A v1 origin stand-in that records the one request it gets and answers a v1 item.
        final class RecordingOrigin: Sendable {
            let server: GatewayServer
            let recorder = Recorder()

            /// The requests received, in order.
            final class Recorder: Sendable {
                private let requests = Locked<[GatewayRequest]>([])
                func record(_ request: GatewayRequest) { requests.withLock { $0.append(request) } }
                var all: [GatewayRequest] { requests.withLock { $0 } }
            }

            init() throws {
                let configuration = GatewayConfiguration.loopback()
                var router = Router()
                let recorder = self.recorder
                router.add(.post, "/item", .immediate { request, _ in
                    recorder.record(request)
                    let item = #"{"id":500,"title":"t","descriptions":"d","price":16.9,"currency":"USD","stock":3,"discounted_price":10,"#
                        + #""thumbnails":[],"images":[],"registration_date":1611523563.7237701}"#
                    return GatewayResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(item.utf8))
                })
                var logger = Logger(label: "recording-origin")
                logger.logLevel = .critical
                server = GatewayServer(configuration: configuration, router: router, logger: logger)
                try server.start()
            }
        }

        @Test func theOriginGetsTheV1FormExactlyAndLogsHoldNoSecrets() async throws {
            let origin = try RecordingOrigin()
            defer { origin.server.shutdown() }
            let pipe = Pipe()
            let writer = LogWriter(output: pipe.fileHandleForWriting, interval: .seconds(3600))
            var handler = BatchedLogHandler(label: "gateway", writer: writer)
            handler.logLevel = .trace
            let logger = Logger(label: "gateway") { _ in handler }

            var configuration = GatewayConfiguration.loopback()
            configuration.origin.url = "http://127.0.0.1:\(origin.server.port)"
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            let reads = ProductReads(
                endpoint: try OriginEndpoint(url: configuration.origin.url!), generation: .v1, configuration: configuration.readPath,
                compression: configuration.compression, metrics: metrics)
            let writes = ProductWrites(endpoint: reads.endpoint, generation: .v1, reads: reads)
            let gateway = GatewayServer(
                configuration: configuration, router: GatewayApplication.router(metrics: metrics, reads: reads, writes: writes), logger: logger,
                metrics: metrics)
            try gateway.start()
            defer { gateway.shutdown() }

            let port = gateway.port
            let png = IntegrationTests.WritePath.png
            let body = Array("""
                {"title":"맥북 프로","description":"설명입니다","price":16.9,"currency":"USD","stock":3,"discountedPrice":10,\
                "password":"s3cret-Pa55","images":[{"filename":"내 사진.png","contentType":"image/png","data":"\(Data(png).base64EncodedString())"}]}
                """.utf8)
            let response = try await offPool {
                try RawHTTPClient(port: port).request("POST", "/v1/products", headers: ["Content-Type: application/json"], body: body)
            }
            #expect(response.status == 201)
            #expect(response.header("Location") == "/v1/products/500")

            let requests = origin.recorder.all
            #expect(requests.count == 1)
            let sent = try #require(requests.first)
            let contentType = try #require(sent.headers["Content-Type"])
            #expect(contentType.hasPrefix("multipart/form-data; boundary="))
            #expect(sent.headers["X-Request-ID"] == response.header("X-Request-ID"))
            let parts = try MultipartParser(contentType: contentType).parse(sent.body)
            #expect(parts.map(\.name) == ["title", "descriptions", "price", "currency", "stock", "discounted_price", "password", "images[]"])
            #expect(parts.prefix(7).map(\.text) == ["맥북 프로", "설명입니다", "16.9", "USD", "3", "10", "s3cret-Pa55"])
            let image = try #require(parts.last)
            #expect(image.filename == "내 사진.png")
            #expect(image.contentType == "image/png")
            #expect(image.body == png)
            // CRLF framing, a closing delimiter, nothing after it.
            let boundary = String(contentType.split(separator: "=", maxSplits: 1)[1])
            #expect(sent.body.suffix(boundary.utf8.count + 6) == ArraySlice(Array("--\(boundary)--\r\n".utf8)))

            writer.flush()
            try pipe.fileHandleForWriting.close()
            let logs = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(logs.contains("POST /v1/products 201"))
            #expect(!logs.contains("s3cret-Pa55"))
            #expect(!logs.contains(Data(png).base64EncodedString()))
        }
    }
}
