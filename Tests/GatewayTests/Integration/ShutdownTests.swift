import Foundation
@testable import Gateway
@testable import GatewayRuntime
import TestSupport
import Testing

extension IntegrationTests {
    @Suite struct Shutdown {
        @Test func inFlightRequestsFinishAndNewConnectionsAreRefused() async throws {
            var configuration = GatewayConfiguration.loopback(threads: 2)
            configuration.shutdownGrace = .seconds(10)
            let server = GatewayServer(configuration: configuration, router: TestRoutes.router(), logger: .init(label: "t"))
            try server.start()
            let port = server.port
            let client = try await offPool { () -> RawHTTPClient in
                let client = try RawHTTPClient(port: port)
                try client.send("GET /slow?ms=400 HTTP/1.1\r\nHost: x\r\n\r\n")
                return client
            }
            for _ in 0..<500 where server.inFlight == 0 {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(server.inFlight == 1)
            let stopped = try await offPool { () -> Bool in
                server.shutdown()
                return true
            }
            #expect(stopped)
            let response = try await offPool { try client.readResponse() }
            #expect(response.status == 200)
            #expect(response.text == #"{"slow":400}"#)
            #expect(response.header("Connection") == "close")
            #expect(throws: (any Error).self) { try RawHTTPClient(port: port) }
        }
    }
}

