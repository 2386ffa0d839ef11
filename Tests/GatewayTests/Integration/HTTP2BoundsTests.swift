import Foundation
@testable import Gateway
@testable import GatewayRuntime
@testable import HTTPInterface
@testable import Observability
@testable import Routing
import Synchronization
import TestSupport
import Testing

extension IntegrationTests.HTTP2 {
    // The bounds the gateway puts on what nghttp2 leaves open: resets, floods, flow control
    // held by the client, the two-step drain.

    /// Rapid reset (CVE-2023-44487): 20,000 streams opened and reset at once on one
    /// connection. Few reach a handler, the connection ends with GOAWAY, and another
    /// client is served meanwhile.
    @Test func rapidResetIsBounded() async throws {
        let handled = Atomic<Int>(0)
        var router = TestRoutes.router()
        router.add(.get, "/counted", .immediate { _, _ in
            handled.add(1, ordering: .relaxed)
            return GatewayResponse.json(Array("{}".utf8))
        })
        try await TestServer.with(router: router, threads: 1) { server in
            let port = server.port
            let rssBefore = Self.residentBytes()
            let (goaway, ended, other) = try await offPool {
                let client = try HTTP2TestClient(port: port, raw: true)
                try client.flush()
                var bytes: [UInt8] = []
                let block = HTTP2Frames.getBlock("/counted")
                for index in 0..<20_000 {
                    let stream = UInt32(2 * index + 1)
                    bytes += HTTP2Frames.frame(.headers, flags: HTTP2Frames.endHeaders | HTTP2Frames.endStream, stream: stream, block)
                    bytes += HTTP2Frames.reset(stream)
                    if bytes.count > 256 * 1024 {
                        do { try bytes.withUnsafeBytes { try client.writeAll($0) } } catch { break }
                        bytes = []
                    }
                }
                if !bytes.isEmpty { try? bytes.withUnsafeBytes { try client.writeAll($0) } }
                let ended = client.waitForEnd(timeout: .seconds(10))
                let other = try HTTP2TestClient(port: port).get("/healthz")
                return (client.goaway, ended, other)
            }
            #expect(handled.load(ordering: .relaxed) <= 2000, "\(handled.load(ordering: .relaxed)) reached the handler")
            #expect(goaway?.errorCode == 11, "ENHANCE_YOUR_CALM")
            #expect(ended)
            #expect(other.status == 200)
            // The test process holds the gateway: its resident memory grew by less than 64 MiB.
            #expect(Self.residentBytes() - rssBefore < 64 << 20)
        }
    }

    /// CONTINUATION flood (CVE-2024-28182) and an HPACK bomb: the connection ends with
    /// GOAWAY(ENHANCE_YOUR_CALM) or a protocol error, and nothing is answered.
    @Test func headerFloodsEndTheConnection() async throws {
        try await TestServer.with(threads: 1) { server in
            let port = server.port
            let (continuation, bomb) = try await offPool {
                // HEADERS without END_HEADERS, then CONTINUATION frames that never end the block.
                let flood = try HTTP2TestClient(port: port, raw: true)
                try flood.flush()
                var bytes = HTTP2Frames.frame(.headers, flags: HTTP2Frames.endStream, stream: 1, HTTP2Frames.getBlock("/healthz"))
                for _ in 0..<1000 { bytes += HTTP2Frames.frame(.continuation, stream: 1, HTTP2Frames.literal("x-a", String(repeating: "b", count: 100))) }
                try? bytes.withUnsafeBytes { try flood.writeAll($0) }
                let floodEnded = flood.waitForEnd()
                // One 4,000-byte field in the dynamic table, referenced 10,000 times: a
                // 14 KB block that decodes to 40 MB.
                let bomb = try HTTP2TestClient(port: port, raw: true)
                try bomb.flush()
                var block = HTTP2Frames.getBlock("/healthz") + HTTP2Frames.indexedLiteral("x-bomb", String(repeating: "c", count: 4000))
                for _ in 0..<10_000 { block += HTTP2Frames.indexed(62) }
                var frames: [UInt8] = []
                var offset = 0
                var first = true
                while offset < block.count {
                    let end = min(block.count, offset + 16_384)
                    let last = end == block.count
                    frames += HTTP2Frames.frame(
                        first ? .headers : .continuation, flags: (first ? HTTP2Frames.endStream : 0) | (last ? HTTP2Frames.endHeaders : 0),
                        stream: 1, Array(block[offset..<end]))
                    first = false
                    offset = end
                }
                try? frames.withUnsafeBytes { try bomb.writeAll($0) }
                let bombEnded = bomb.waitForEnd()
                return ((floodEnded, flood.goaway?.errorCode), (bombEnded, bomb.goaway?.errorCode))
            }
            #expect(continuation.0)
            #expect(continuation.1 != nil)
            #expect(bomb.0)
            #expect(bomb.1 == 11, "ENHANCE_YOUR_CALM")
        }
    }

    /// SETTINGS and PING floods whose ACKs are never read: nghttp2 reports the flood and
    /// the connection closes.
    @Test func controlFloodsCloseTheConnection() async throws {
        try await TestServer.with(threads: 1) { server in
            let port = server.port
            let results = try await offPool {
                var ended: [Bool] = []
                for frame in [HTTP2Frames.frame(.settings), HTTP2Frames.frame(.ping, [UInt8](repeating: 7, count: 8))] {
                    let client = try HTTP2TestClient(port: port, raw: true)
                    try client.flush()
                    var bytes: [UInt8] = []
                    for _ in 0..<20_000 { bytes += frame }
                    try? bytes.withUnsafeBytes { try client.writeAll($0) }
                    ended.append(client.waitForEnd())
                }
                return ended
            }
            #expect(results == [true, true])
        }
    }

    /// Flow control held by the client: a stream whose window stays 0 is reset (CANCEL)
    /// after --write-timeout; a connection whose window stays 0 ends with GOAWAY.
    @Test func stalledFlowControlIsBounded() async throws {
        try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: { $0.writeTimeout = .seconds(1) }) { server in
            let port = server.port
            let (streamReset, connection) = try await offPool {
                // SETTINGS_INITIAL_WINDOW_SIZE (4) = 0: no DATA may be sent on any stream.
                let zero = try HTTP2TestClient(port: port, raw: true)
                try zero.flush()
                let settings = HTTP2Frames.frame(.settings, [0, 4, 0, 0, 0, 0])
                let request = HTTP2Frames.frame(.headers, flags: HTTP2Frames.endHeaders | HTTP2Frames.endStream, stream: 1, HTTP2Frames.getBlock("/big?size=100000"))
                try (settings + request).withUnsafeBytes { try zero.writeAll($0) }
                try zero.run(until: { zero.rawResets[1] != nil }, timeout: .seconds(6))
                // A 1 MiB stream window, and no WINDOW_UPDATE for the connection's 65,535 bytes.
                let held = try HTTP2TestClient(port: port, raw: true)
                try held.flush()
                let wide = HTTP2Frames.frame(.settings, [0, 4, 0, 0x10, 0, 0])
                try (wide + request).withUnsafeBytes { try held.writeAll($0) }
                let ended = held.waitForEnd(timeout: .seconds(6))
                return ((zero.rawResets[1], zero.rawDataBytes[1] ?? 0), (ended, held.goaway?.errorCode, held.rawDataBytes[1] ?? 0))
            }
            #expect(streamReset.0 == 8, "RST_STREAM(CANCEL)")
            #expect(streamReset.1 == 0)
            #expect(connection.0)
            #expect(connection.1 == 11, "GOAWAY(ENHANCE_YOUR_CALM)")
            #expect(connection.2 == 65_535)
        }
    }

    /// SIGTERM's drain, two steps: a GOAWAY notice and a PING, then the final GOAWAY with
    /// the last stream taken; the stream in progress finishes, then the connection closes.
    @Test func drainIsTwoStep() async throws {
        let configuration = GatewayConfiguration.loopback(threads: 1)
        let server = GatewayServer(configuration: configuration, router: TestRoutes.router(), logger: .quiet("h2-drain"), metrics: GatewayMetrics(presets: GatewayMetrics.gatewayPresets))
        try server.start()
        let port = server.port
        let (slow, goaway, ended) = try await offPool {
            let client = try HTTP2TestClient(port: port)
            _ = try client.get("/healthz")
            let pending = [HTTP2TestClient.Request("GET", "/slow?ms=400")]
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.1)
                server.shutdown()
            }
            let slow = try client.send(pending)[0]
            return (slow, client.goaway, client.waitForEnd())
        }
        #expect(slow.status == 200)
        #expect(slow.text == #"{"slow":400}"#)
        #expect(goaway?.lastStreamID == 3)
        #expect(goaway?.errorCode == 0)
        #expect(ended)
    }
}
