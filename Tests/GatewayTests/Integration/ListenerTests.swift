import Foundation
import Observability
@testable import Gateway
@testable import GatewayRuntime
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Transport

extension IntegrationTests {
    /// A port another listener holds: the start fails with a clear message, unless
    /// `--listen-shared` asks to share it (a hand-over to a new binary).
    @Suite struct Listener {
        static func server(port: Int = 0, shared: Bool = false, admin: Int? = nil) -> GatewayServer {
            var configuration = GatewayConfiguration.loopback(threads: 2)
            configuration.port = port
            configuration.listenShared = shared
            return GatewayServer(configuration: configuration, router: TestRoutes.router(), logger: .quiet("listener"))
        }

        static func refusal(_ start: () throws -> Void) -> String? {
            do {
                try start()
                return nil
            } catch {
                return "\(error)"
            }
        }

        @Test func aTakenPortFailsTheStartAndASharedOneHandsOver() async throws {
            let first = Self.server()
            try first.start()
            let port = first.port
            let second = Self.server(port: port)
            #expect(Self.refusal { try second.start() } == "cannot listen on 127.0.0.1:\(port): address already in use (another process listens there). "
                + "Stop it, choose another port, or pass --listen-shared to share the port on purpose (a hand-over to a new binary).")

            // The admin listener follows the same rule.
            // An origin nobody asks: the admin listener never starts.
            var configuration = GatewayConfiguration.testing(origin: URL(string: "http://127.0.0.1:9")!, threads: 1)
            configuration.admin.port = port
            configuration.admin.host = "127.0.0.1"
            configuration.admin.token = "listener-test-admin-token-0123456789"
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            let routes = try GatewayApplication.originRoutes(configuration: configuration, metrics: metrics)
            let admin = try #require(try GatewayApplication.adminServer(configuration: configuration, routes: routes, metrics: metrics, logger: .quiet("admin")))
            #expect(Self.refusal { try admin.start() }?.hasPrefix("cannot listen on 127.0.0.1:\(port): address already in use") == true)

            // Shared on purpose: the new one starts beside the first, which then drains and
            // goes; the port keeps answering.
            let successor = Self.server(port: port, shared: true)
            try successor.start()
            #expect(successor.port == port)
            first.shutdown()
            let answer = try await offPool { try RawHTTPClient(port: port).request("GET", "/healthz") }
            #expect(answer.status == 200)
            successor.shutdown()
        }

        /// A listener on the port closed a connection first, so its side waits in
        /// `TIME_WAIT` there; a gateway on that port starts all the same.
        @Test func connectionsInTimeWaitDoNotCountAsTaken() async throws {
            let port = try freeLoopbackPort()
            try Self.leaveTimeWait(on: port)
            #expect(try await poll { Self.timeWaitSockets(on: port) > 0 })
            let next = Self.server(port: port)
            #expect(Self.refusal { try next.start() } == nil)
            #expect(next.port == port)
            next.shutdown()
        }

        /// Listens on 127.0.0.1:`port`, connects to it, closes the accepted side first (so it
        /// is the one left in `TIME_WAIT`), then the client and the listener.
        static func leaveTimeWait(on port: Int) throws {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let length = socklen_t(MemoryLayout<sockaddr_in>.size)
            func withAddress<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
                withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
            }
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(listener) }
            var one: Int32 = 1
            setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            guard withAddress({ bind(listener, $0, length) }) == 0, listen(listener, 1) == 0 else {
                throw RawHTTPClient.ClientError(description: "cannot listen on \(port)")
            }
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(client) }
            guard withAddress({ connect(client, $0, length) }) == 0 else { throw RawHTTPClient.ClientError(description: "cannot connect") }
            let accepted = accept(listener, nil, nil)
            guard accepted >= 0 else { throw RawHTTPClient.ClientError(description: "cannot accept") }
            close(accepted)
            var byte: UInt8 = 0
            // The end of stream: the accepted side's FIN has arrived.
            guard recv(client, &byte, 1, 0) == 0 else { throw RawHTTPClient.ClientError(description: "the connection did not end") }
        }

        /// Sockets in `TIME_WAIT` (state 06) whose local port is `port`, from /proc/net/tcp.
        static func timeWaitSockets(on port: Int) -> Int {
            let hex = String(format: ":%04X", port)
            return ["/proc/net/tcp", "/proc/net/tcp6"].reduce(0) { count, path in
                // Read to the end: procfs reports no size, and a busy table is longer than a page.
                let data = FileHandle(forReadingAtPath: path)?.readDataToEndOfFile() ?? Data()
                let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst()
                return count + lines.filter { line in
                    let fields = line.split(separator: " ")
                    return fields.count > 3 && fields[1].hasSuffix(hex) && fields[3] == "06"
                }.count
            }
        }
    }
}
