import BodyCompression
import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests {
    @Suite struct Compression {
        @Test func gzipOnlyWhenAskedAndTheBodyRoundTrips() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let expected = TestRoutes.jsonBody(size: 5000)
                    let gzipped = try client.request("GET", "/big?size=5000", headers: ["Accept-Encoding: gzip, deflate, br"])
                    #expect(gzipped.header("Content-Encoding") == "gzip")
                    #expect(gzipped.header("Vary") == "Accept-Encoding")
                    #expect(gzipped.body.count < 1000)
                    #expect(try Gzip.decompress(gzipped.body, maxBytes: 1 << 20) == expected)

                    for header in [[], ["Accept-Encoding: gzip;q=0"], ["Accept-Encoding: br"], ["Accept-Encoding: identity"]] {
                        let plain = try client.request("GET", "/big?size=5000", headers: header)
                        #expect(plain.header("Content-Encoding") == nil, "\(header)")
                        #expect(plain.header("Vary") == "Accept-Encoding", "\(header)")
                        #expect(plain.body == expected, "\(header)")
                    }
                }
            }
        }

        @Test func smallBodiesStayIdentity() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let small = try RawHTTPClient(port: port).request("GET", "/big?size=1023", headers: ["Accept-Encoding: gzip"])
                    #expect(small.header("Content-Encoding") == nil)
                    #expect(small.body == TestRoutes.jsonBody(size: 1023))
                    let threshold = try RawHTTPClient(port: port).request("GET", "/big?size=1024", headers: ["Accept-Encoding: gzip"])
                    #expect(threshold.header("Content-Encoding") == "gzip")
                }
            }
        }

        @Test func largeBodiesAreCompressedOffTheLoopAndStillRoundTrip() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    for size in [65_536, 300_000] {
                        let response = try client.request("GET", "/big?size=\(size)", headers: ["Accept-Encoding: gzip"])
                        #expect(response.header("Content-Encoding") == "gzip")
                        #expect(try Gzip.decompress(response.body, maxBytes: 1 << 20) == TestRoutes.jsonBody(size: size))
                    }
                }
            }
        }
    }
}
