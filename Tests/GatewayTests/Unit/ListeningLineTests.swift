import TestSupport
import Testing
@testable import Transport

/// What the start-up line says about a listener: the URL to try and the protocols.
@Suite struct ListeningLineTests {
    @Test func plainListeners() {
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.http2 = HTTP2Configuration(enabled: true, maxConcurrentStreams: 100)
        #expect(HTTPServer.describe(configuration, port: 8080) == ("http://127.0.0.1:8080", ["HTTP/1.1", "h2c"], nil))
        configuration.http2 = HTTP2Configuration(enabled: false, maxConcurrentStreams: 100)
        #expect(HTTPServer.describe(configuration, port: 9090) == ("http://127.0.0.1:9090", ["HTTP/1.1"], nil))
        configuration.host = "0.0.0.0"
        #expect(HTTPServer.describe(configuration, port: 8080) == ("http://127.0.0.1:8080", ["HTTP/1.1"], "every IPv4 address"))
        configuration.host = "::"
        #expect(HTTPServer.describe(configuration, port: 8080) == ("http://[::1]:8080", ["HTTP/1.1"], "every address"))
        configuration.host = "fd00::7"
        #expect(HTTPServer.describe(configuration, port: 8080) == ("http://[fd00::7]:8080", ["HTTP/1.1"], nil))
        configuration.host = "gateway.internal"
        #expect(HTTPServer.describe(configuration, port: 80) == ("http://gateway.internal:80", ["HTTP/1.1"], nil))
    }

    @Test func tlsListenersOfferH2First() throws {
        let certificate = try TestCertificate(subjectAltNames: ["DNS:localhost"])
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.http2 = HTTP2Configuration(enabled: true, maxConcurrentStreams: 100)
        configuration.tls = try TLSServerContext(
            files: TLSServerFiles(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile), offersHTTP2: true)
        #expect(HTTPServer.describe(configuration, port: 8443) == ("https://127.0.0.1:8443", ["h2", "HTTP/1.1"], nil))
        configuration.http2 = HTTP2Configuration(enabled: false, maxConcurrentStreams: 100)
        #expect(HTTPServer.describe(configuration, port: 8443) == ("https://127.0.0.1:8443", ["HTTP/1.1"], nil))
    }
}
