import Foundation
import Logging
import Testing
@testable import Gateway

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
