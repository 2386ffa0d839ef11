import Foundation
import GatewayModels
import Logging
@testable import Observability
import Testing
@testable import Gateway
import GatewaySupport

@Suite struct BatchedLogHandlerTests {
    /// Logs through a writer into a pipe and returns what arrived.
    private func logged(capacity: Int = 1 << 20, _ body: (Logger) -> Void) throws -> [String] {
        let pipe = Pipe()
        // An hour between timed drains: only flush() writes, so the test does not depend on timing.
        let writer = LogWriter(output: pipe.fileHandleForWriting, capacity: capacity, interval: .seconds(3600))
        var handler = BatchedLogHandler(label: "gateway", writer: writer)
        handler.logLevel = .info
        let logger = Logger(label: "gateway") { _ in handler }
        body(logger)
        writer.flush()
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    @Test func formatsLikeStreamLogHandlerWithUTCMilliseconds() throws {
        let lines = try logged { logger in
            logger.info("GET /healthz 200", metadata: ["request_id": "abc", "duration_ms": "0.120"])
            logger.debug("not at this level")
        }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info gateway: duration_ms=0\.120 request_id=abc \[GatewayTests\] GET \/healthz 200/) != nil)
    }

    @Test func dropsAndCountsLinesPastCapacityInsteadOfBlocking() throws {
        let lines = try logged(capacity: 300) { logger in
            for index in 0..<20 { logger.info("line \(index)") }
        }
        #expect(lines.first?.hasSuffix("line 0") == true)
        let report = try #require(lines.last)
        #expect(report.hasPrefix("log-writer: dropped "))
        #expect(lines.count < 20)
        let dropped = Int(report.split(separator: " ")[2]) ?? 0
        #expect(dropped + lines.count - 1 == 20)
    }
}

@Suite struct LogWriterWakeTests {
    /// Reads what `pipe` receives next on a thread of its own; nil when nothing arrived in
    /// 10 s (a bound against hanging, not a timing check).
    private func next(_ pipe: Pipe) -> String? {
        let arrived = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let handle = pipe.fileHandleForReading
        Thread {
            let data = handle.availableData
            arrived.withLock { $0 = String(decoding: data, as: UTF8.self) }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + 10) == .success else { return nil }
        return arrived.withLock { $0 }
    }

    /// The writer sleeps while there is nothing to write: a line must wake it, and so must
    /// the first line after a batch was written.
    @Test func eachBatchsFirstLineWakesTheWriter() {
        let pipe = Pipe()
        let writer = LogWriter(output: pipe.fileHandleForWriting, interval: .milliseconds(20))
        writer.write("first\n")
        #expect(next(pipe) == "first\n")
        writer.write(urgent: false) { $0.append(contentsOf: "second\n".utf8) }
        #expect(next(pipe) == "second\n")
    }

    /// An urgent line is written without waiting out the interval (an hour here), whether it
    /// starts a batch or joins one.
    @Test func anUrgentLineIsWrittenAtOnce() {
        let pipe = Pipe()
        let writer = LogWriter(output: pipe.fileHandleForWriting, interval: .seconds(3600))
        writer.write("failed\n", urgent: true)
        #expect(next(pipe) == "failed\n")
        writer.write("queued\n")
        // For order only: the writer is in its hour's wait for the batch when the urgent line comes.
        Thread.sleep(forTimeInterval: 0.1)
        writer.write("failed again\n", urgent: true)
        #expect(next(pipe) == "queued\nfailed again\n")
    }

    /// A line dropped when nothing was pending (longer than the whole capacity) wakes the
    /// writer for its report.
    @Test func aDropReportIsWrittenWithoutAnotherLine() {
        let pipe = Pipe()
        let writer = LogWriter(output: pipe.fileHandleForWriting, capacity: 16, interval: .milliseconds(20))
        writer.write("a line longer than sixteen bytes\n")
        #expect(next(pipe) == "log-writer: dropped 1 lines (over 16 bytes pending)\n")
    }
}

@Suite struct JSONLogLineTests {
    @Test func escapesEverythingJSONNeeds() {
        #expect(BatchedLogHandler.quoted("a\"b\\c\nd\u{1}é") == #""a\"b\\c\nd\u0001é""#)
    }

    @Test func writesOneObjectPerLineWithNumbersAsNumbers() throws {
        let pipe = Pipe()
        let writer = LogWriter(output: pipe.fileHandleForWriting, interval: .seconds(3600))
        var handler = BatchedLogHandler(label: "gateway", writer: writer, format: .json)
        handler.logLevel = .info
        let logger = Logger(label: "gateway") { _ in handler }
        logger.info(
            "line \"one\"",
            metadata: ["status": .stringConvertible(200), "duration_ms": .stringConvertible(LogNumber("0.125")), "route": "/x", "odd": .stringConvertible(LogNumber("1e5"))])
        writer.flush()
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let line = try #require(text.split(separator: "\n").first)
        #expect(line.hasSuffix(#","logger":"gateway","message":"line \"one\"","duration_ms":0.125,"odd":"1e5","route":"/x","status":200}"#))
        #expect(line.hasPrefix(#"{"time":""#))
    }
}

@Suite struct AccessLineTests {
    /// The direct writer gives, byte for byte but the time, the line swift-log's generic
    /// path gives, in both formats; a path with a quote stays valid JSON.
    @Test(arguments: [BatchedLogHandler.Format.text, .json])
    func theDirectWriterMatchesTheGenericPath(format: BatchedLogHandler.Format) throws {
        let pipe = Pipe()
        let writer = LogWriter(output: pipe.fileHandleForWriting, interval: .seconds(3600))
        var handler = BatchedLogHandler(label: "gateway", writer: writer, format: format)
        handler.logLevel = .info
        let logger = Logger(label: "gateway") { _ in handler }
        for (cache, user) in [("hit", nil), (nil, "auth0|seller-7")] as [(String?, String?)] {
            let line = AccessLine(
                method: .get, wireProtocol: .http2, path: "/v1/products/\"3", route: "/v1/products/{id}", status: 200, bytes: 620, cache: cache,
                client: "127.0.0.1:5000", requestID: "r-1", traceID: "4bf92f3577b34da6a3ce929d0e0e4736", user: user)
            line.logEvent(to: logger, elapsed: .microseconds(12_345))
            handler.write(line, elapsed: .microseconds(12_345))
        }
        writer.flush()
        try pipe.fileHandleForWriting.close()
        let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        // Without the time (the first 24 characters of a text line, the "time" member of JSON).
        let untimed = lines.map { format == .text ? String($0.dropFirst(24)) : $0.replacing(/"time":"[^"]*"/, with: "") }
        #expect(untimed[0] == untimed[1])
        #expect(untimed[2] == untimed[3])
        if format == .json {
            for text in lines { #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any]) }
            #expect(untimed[0] == #"{,"level":"info","logger":"gateway","message":"GET /v1/products/\"3 200","bytes":620,"cache":"hit","client":"127.0.0.1:5000","duration_ms":12.345,"method":"GET","protocol":"HTTP/2","request_id":"r-1","route":"/v1/products/{id}","status":200,"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"}"#)
            #expect(untimed[2].hasSuffix(#""trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","user":"auth0|seller-7"}"#))
        } else {
            #expect(untimed[0] == #" info gateway: bytes=620 cache=hit client=127.0.0.1:5000 duration_ms=12.345 method=GET protocol=HTTP/2 request_id=r-1 route=/v1/products/{id} status=200 trace_id=4bf92f3577b34da6a3ce929d0e0e4736 [Gateway] GET /v1/products/"3 200"#)
            #expect(untimed[2].hasSuffix(#"trace_id=4bf92f3577b34da6a3ce929d0e0e4736 user=auth0|seller-7 [Gateway] GET /v1/products/"3 200"#))
        }
    }
}
