import Crypto
import Foundation
import Testing
import TestSupport
import _CryptoExtras

extension IntegrationTests {
    /// TLS session ticket keys shared by replicas (`--tls-ticket-key-file`), and the TLS files
    /// reloaded on SIGHUP and on change (`--tls-reload-interval`), on the `gateway` executable
    /// as an operator runs it. Clients are `openssl s_client`.
    @Suite struct TLSKeys {
        /// A directory of the test's own with a certificate for 127.0.0.1 and key files.
        struct Files {
            let directory: URL
            let certificate: TestCertificate

            init() throws {
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-tls-keys-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            }

            func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

            /// `certificate` copied to `cert.pem` and `key.pem` here: the paths a gateway reads,
            /// which a test then replaces.
            func served(_ certificate: TestCertificate) throws -> TestCertificateFiles {
                try FileManager.default.copyItem(atPath: certificate.certificateFile, toPath: path("cert.pem"))
                try FileManager.default.copyItem(atPath: certificate.keyFile, toPath: path("key.pem"))
                return TestCertificateFiles(certificateFile: path("cert.pem"), keyFile: path("key.pem"))
            }

            /// A new ticket key file `name` of 80 random bytes (or `count`); returns its bytes.
            @discardableResult
            func ticketKey(_ name: String, count: Int = 80) throws -> [UInt8] {
                var generator = SystemRandomNumberGenerator()
                let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
                return bytes
            }
        }

        /// Replaces `path` with `contents` at once (a rename, as secret volumes do).
        static func replace(_ path: String, with contents: Data) throws {
            let temporary = path + ".new"
            try contents.write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }

        /// A gateway serving HTTPS with `certificate`, answering without an origin.
        static func launch(_ certificate: TestCertificate, _ environment: [String: String] = [:]) throws -> (BuiltExecutable, Int) {
            try IntegrationTests.Executable.launch(
                environment: [
                    "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": "0", "GATEWAY_THREADS": "1", "GATEWAY_ORIGIN": "http://127.0.0.1:9",
                    "GATEWAY_TLS_CERT": certificate.certificateFile, "GATEWAY_TLS_KEY": certificate.keyFile,
                ].merging(environment) { _, new in new })
        }

        static func stop(_ gateway: BuiltExecutable) async throws -> String {
            gateway.signal(SIGTERM)
            #expect(try await gateway.waitForExit() == 0)
            return gateway.remainingStderr()
        }

        /// A ticket from one gateway resumes the session on another given the same key file,
        /// and not on one with a key of its own; the ticket is sealed as nginx seals with an
        /// 80-byte key, checked with swift-crypto (not OpenSSL): the key's name, then a 16-byte
        /// IV, the session under AES-256-CBC with the last 32 bytes of the key, and an
        /// HMAC-SHA256 under bytes 16–47 over all that.
        @Test(arguments: TLSHandshake.Version.allCases)
        func aTicketResumesOnEveryGatewaySharingItsKeyFile(_ version: TLSHandshake.Version) async throws {
            let files = try Files()
            let key = try files.ticketKey("ticket.key")
            let shared = ["GATEWAY_TLS_TICKET_KEY_FILE": files.path("ticket.key")]
            let (first, firstPort) = try Self.launch(files.certificate, shared)
            let (second, secondPort) = try Self.launch(files.certificate, shared)
            let (own, ownPort) = try Self.launch(files.certificate)
            let caFile = files.certificate.certificateFile
            let session = files.path("session.pem")
            let (fresh, onSecond, onOwn) = try await offPool {
                (
                    try TLSHandshake(port: firstPort, version: version, caFile: caFile, sessionOut: session),
                    try TLSHandshake(port: secondPort, version: version, caFile: caFile, sessionIn: session),
                    try TLSHandshake(port: ownPort, version: version, caFile: caFile, sessionIn: session)
                )
            }
            #expect(fresh.negotiated == (version == .tls13 ? "TLSv1.3" : "TLSv1.2"))
            #expect(!fresh.resumed)
            #expect(fresh.output.contains("HTTP/1.1 200 OK"))
            #expect(onSecond.resumed)
            #expect(onSecond.output.contains("HTTP/1.1 200 OK"))
            #expect(!onOwn.resumed)
            #expect(onOwn.output.contains("HTTP/1.1 200 OK"))

            let ticket = try TLSHandshake.ticket(inSession: session)
            #expect(ticket.count > 16 + 16 + 32 + 48)
            #expect(Array(ticket.prefix(16)) == Array(key[0..<16]))
            let mac = Array(HMAC<SHA256>.authenticationCode(for: ticket.dropLast(32), using: SymmetricKey(data: key[16..<48])))
            #expect(mac == Array(ticket.suffix(32)))
            let sealed = Array(ticket[32..<(ticket.count - 32)])
            let opened = try AES._CBC.decrypt(sealed, using: SymmetricKey(data: key[48..<80]), iv: AES._CBC.IV(ivBytes: ticket[16..<32]))
            // The session, DER: a SEQUENCE.
            #expect(opened.first == 0x30)
            for gateway in [first, second, own] { _ = try await Self.stop(gateway) }
        }

        /// With two key files the first seals new tickets and both open them: a ticket under
        /// the second (the previous key, kept while clients still hold its tickets) resumes,
        /// and a new session's ticket is under the first.
        @Test(arguments: TLSHandshake.Version.allCases)
        func theFirstKeySealsAndEveryKeyOpens(_ version: TLSHandshake.Version) async throws {
            let files = try Files()
            let old = try files.ticketKey("old.key")
            let new = try files.ticketKey("new.key")
            let (before, beforePort) = try Self.launch(files.certificate, ["GATEWAY_TLS_TICKET_KEY_FILE": files.path("old.key")])
            let (after, afterPort) = try Self.launch(
                files.certificate, ["GATEWAY_TLS_TICKET_KEY_FILE": files.path("new.key") + "," + files.path("old.key")])
            let caFile = files.certificate.certificateFile
            let (oldSession, newSession) = (files.path("old.pem"), files.path("new.pem"))
            let (fresh, rotated, freshAfter, back) = try await offPool {
                (
                    try TLSHandshake(port: beforePort, version: version, caFile: caFile, sessionOut: oldSession),
                    try TLSHandshake(port: afterPort, version: version, caFile: caFile, sessionIn: oldSession),
                    try TLSHandshake(port: afterPort, version: version, caFile: caFile, sessionOut: newSession),
                    try TLSHandshake(port: beforePort, version: version, caFile: caFile, sessionIn: newSession)
                )
            }
            #expect(!fresh.resumed)
            #expect(Array(try TLSHandshake.ticket(inSession: oldSession).prefix(16)) == Array(old[0..<16]))
            #expect(rotated.resumed)
            #expect(!freshAfter.resumed)
            #expect(Array(try TLSHandshake.ticket(inSession: newSession).prefix(16)) == Array(new[0..<16]))
            // The gateway that has only the old key cannot open the new ticket.
            #expect(!back.resumed)
            for gateway in [before, after] { _ = try await Self.stop(gateway) }
        }

        /// SIGHUP loads the certificate, key and ticket keys again: a connection open across
        /// it keeps working on the old certificate, new connections get the new one, a ticket
        /// issued before still resumes (the process's own key is kept), and a file that fails
        /// to load keeps what is in use, logged and counted.
        @Test func sighupSwapsTheCertificateWithoutDroppingAConnection() async throws {
            let files = try Files()
            let original = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            let replacement = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            // The gateway reads the files at paths of the test's own, replaced below.
            let served = try files.served(original)
            let (gateway, port) = try IntegrationTests.Executable.launch(environment: [
                "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": "0", "GATEWAY_THREADS": "2", "GATEWAY_ORIGIN": "http://127.0.0.1:9",
                "GATEWAY_TLS_CERT": served.certificateFile, "GATEWAY_TLS_KEY": served.keyFile,
            ])
            let session = files.path("session.pem")
            let bridge = try TLSBridge(port: port, caFile: original.certificateFile)
            let (first, before) = try await offPool {
                (try bridge.client.request("GET", "/healthz"), try TLSHandshake(port: port, version: .tls13, caFile: original.certificateFile, sessionOut: session))
            }
            #expect(first.status == 200)
            #expect(try before.certificatePEM == Self.pem(original.certificateFile))

            try Self.replace(served.certificateFile, with: try Data(contentsOf: URL(fileURLWithPath: replacement.certificateFile)))
            try Self.replace(served.keyFile, with: try Data(contentsOf: URL(fileURLWithPath: replacement.keyFile)))
            gateway.signal(SIGHUP)
            let reloaded = gateway.readStderr { $0.contains("reloaded the TLS certificate, key and ticket keys") }
            #expect(reloaded.contains("files=\(served.certificateFile),\(served.keyFile) trigger=signal [GatewayRuntime] reloaded the TLS certificate, key and ticket keys"))
            let (open, after, resumed) = try await offPool {
                (
                    try bridge.client.request("GET", "/healthz"),
                    try TLSHandshake(port: port, version: .tls13, caFile: replacement.certificateFile),
                    try TLSHandshake(port: port, version: .tls13, caFile: replacement.certificateFile, sessionIn: session)
                )
            }
            #expect(open.status == 200)
            #expect(open.text == #"{"status":"ok"}"#)
            #expect(try after.certificatePEM == Self.pem(replacement.certificateFile))
            #expect(!after.resumed)
            #expect(resumed.resumed)

            // A broken certificate: the one in use stays.
            try Self.replace(served.certificateFile, with: Data("-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n".utf8))
            gateway.signal(SIGHUP)
            let failed = gateway.readStderr { $0.contains("cannot reload the TLS files") }
            #expect(failed.contains(" error gateway: error=cannot load TLS certificate \(served.certificateFile) and key \(served.keyFile): "))
            #expect(failed.contains("trigger=signal [GatewayRuntime] cannot reload the TLS files; keeping the ones in use"))
            let (still, metrics) = try await offPool {
                (try TLSHandshake(port: port, version: .tls12, caFile: replacement.certificateFile), try bridge.client.request("GET", "/metrics"))
            }
            #expect(try still.certificatePEM == Self.pem(replacement.certificateFile))
            #expect(still.output.contains("HTTP/1.1 200 OK"))
            #expect(metrics.text.contains(#"gateway_reloads_total{files="tls",outcome="ok"} 1"#))
            #expect(metrics.text.contains(#"gateway_reloads_total{files="tls",outcome="failed"} 1"#))
            let log = try await Self.stop(gateway)
            #expect(log.contains("gateway: [Gateway] stopped"))
        }

        /// With `--tls-reload-interval`, a changed file is reloaded within the interval with no
        /// signal (as a Kubernetes secret volume changes), once per change.
        @Test func aChangedFileIsReloadedWithoutASignal() async throws {
            let files = try Files()
            let original = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            let replacement = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            let served = try files.served(original)
            let (gateway, port) = try IntegrationTests.Executable.launch(environment: [
                "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": "0", "GATEWAY_THREADS": "1", "GATEWAY_ORIGIN": "http://127.0.0.1:9",
                "GATEWAY_TLS_CERT": served.certificateFile, "GATEWAY_TLS_KEY": served.keyFile, "GATEWAY_TLS_RELOAD_INTERVAL": "0.1",
            ])
            // A few intervals with nothing changed: nothing is reloaded.
            try await Task.sleep(for: .milliseconds(500))
            // Key first, then certificate: between the two the pair does not match, and a check
            // that falls there fails and keeps the original; the next one takes the pair.
            try Self.replace(served.keyFile, with: try Data(contentsOf: URL(fileURLWithPath: replacement.keyFile)))
            try Self.replace(served.certificateFile, with: try Data(contentsOf: URL(fileURLWithPath: replacement.certificateFile)))
            let seen = gateway.readStderr { $0.contains("trigger=interval [GatewayRuntime] reloaded the TLS certificate") }
            #expect(seen.contains("trigger=interval [GatewayRuntime] reloaded the TLS certificate, key and ticket keys"))
            let after = try await offPool { try TLSHandshake(port: port, version: .tls13, caFile: replacement.certificateFile) }
            #expect(try after.certificatePEM == Self.pem(replacement.certificateFile))
            try await Task.sleep(for: .milliseconds(500))
            let log = seen + (try await Self.stop(gateway))
            #expect(log.components(separatedBy: "reloaded the TLS certificate").count - 1 == 1)
        }

        /// Without TLS, SIGHUP is logged and the gateway goes on serving (the default action
        /// would end the process without a word).
        @Test func sighupWithoutTLSKeepsServing() async throws {
            let (gateway, port) = try IntegrationTests.Executable.launch(environment: [
                "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": "0", "GATEWAY_THREADS": "1", "GATEWAY_ORIGIN": "http://127.0.0.1:9",
            ])
            gateway.signal(SIGHUP)
            let seen = gateway.readStderr { $0.contains("SIGHUP") }
            #expect(seen.contains("[GatewayRuntime] SIGHUP: no files to reload (no --tls-cert)"))
            let health = try await offPool { try RawHTTPClient(port: port).request("GET", "/healthz") }
            #expect(health.status == 200)
            _ = try await Self.stop(gateway)
        }

        /// A ticket key file that does not hold exactly 80 bytes stops the gateway at start,
        /// naming the file.
        @Test func aTicketKeyFileOfAnotherSizeIsRefusedAtStart() async throws {
            let files = try Files()
            try files.ticketKey("short.key", count: 48)
            var environment = ProcessInfo.processInfo.environment
            environment.merge(IntegrationTests.Executable.cacheDirectory) { _, new in new }
            environment.merge([
                "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": "0", "GATEWAY_ORIGIN": "http://127.0.0.1:9",
                "GATEWAY_TLS_CERT": files.certificate.certificateFile, "GATEWAY_TLS_KEY": files.certificate.keyFile,
                "GATEWAY_TLS_TICKET_KEY_FILE": files.path("short.key"),
            ]) { _, new in new }
            let gateway = try BuiltExecutable("gateway", environment: environment)
            #expect(try await gateway.waitForExit() == 1)
            let log = gateway.remainingStderr()
            #expect(log.contains("TLS ticket key file \(files.path("short.key")) holds 48 bytes; it must hold exactly 80"))
        }

        /// The certificate in PEM file `path` (its first).
        static func pem(_ path: String) throws -> String {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return text.firstMatch(of: /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/).map { String($0.0) } ?? ""
        }
    }
}

/// Paths of a certificate and key the test replaces while the gateway runs.
struct TestCertificateFiles {
    let certificateFile: String
    let keyFile: String
}
