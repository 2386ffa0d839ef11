import Foundation
import HTTPCodec
import Logging

extension BatchedLogHandler {
    /// Writes `line` in this handler's format straight into its writer's buffer (under the
    /// writer's lock, without building a String or a metadata dictionary). The caller has
    /// checked the level and that this handler has no metadata of its own.
    package func write(_ line: AccessLine, elapsed: Duration) {
        writer.write { bytes in
            switch format {
            case .text: appendText(line, elapsed: elapsed, to: &bytes)
            case .json: appendJSON(line, elapsed: elapsed, to: &bytes)
            }
        }
    }

    /// `<time> info <label>: bytes=… cache=… client=… duration_ms=… method=… protocol=…
    /// request_id=… route=… status=… trace_id=… [user=…] [Gateway] GET /path 200`, keys sorted as the
    /// generic path sorts them.
    private func appendText(_ line: AccessLine, elapsed: Duration, to bytes: inout [UInt8]) {
        Self.appendTimestamp(to: &bytes)
        bytes.append(contentsOf: " info ".utf8)
        bytes.append(contentsOf: label.utf8)
        bytes.append(contentsOf: ": bytes=".utf8)
        ResponseHeadWriter.appendDecimal(line.bytes, to: &bytes)
        if let cache = line.cache {
            bytes.append(contentsOf: " cache=".utf8)
            bytes.append(contentsOf: cache.utf8)
        }
        bytes.append(contentsOf: " client=".utf8)
        bytes.append(contentsOf: line.client.utf8)
        bytes.append(contentsOf: " duration_ms=".utf8)
        AccessLine.appendMilliseconds(elapsed, to: &bytes)
        bytes.append(contentsOf: " method=".utf8)
        bytes.append(contentsOf: line.method.rawValue.utf8)
        bytes.append(contentsOf: " protocol=".utf8)
        bytes.append(contentsOf: line.wireProtocol.rawValue.utf8)
        bytes.append(contentsOf: " request_id=".utf8)
        bytes.append(contentsOf: line.requestID.utf8)
        bytes.append(contentsOf: " route=".utf8)
        bytes.append(contentsOf: line.route.utf8)
        bytes.append(contentsOf: " status=".utf8)
        ResponseHeadWriter.appendDecimal(line.status, to: &bytes)
        bytes.append(contentsOf: " trace_id=".utf8)
        bytes.append(contentsOf: line.traceID.utf8)
        if let user = line.user {
            bytes.append(contentsOf: " user=".utf8)
            bytes.append(contentsOf: user.utf8)
        }
        bytes.append(contentsOf: " [Gateway] ".utf8)
        appendMessage(line, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    private func appendJSON(_ line: AccessLine, elapsed: Duration, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"time":""#.utf8)
        Self.appendTimestamp(to: &bytes)
        bytes.append(contentsOf: #"","level":"info","logger":"#.utf8)
        bytes.append(contentsOf: Self.quoted(label).utf8)
        bytes.append(contentsOf: #","message":"#.utf8)
        var message: [UInt8] = []
        appendMessage(line, to: &message)
        bytes.append(contentsOf: Self.quoted(String(decoding: message, as: UTF8.self)).utf8)
        bytes.append(contentsOf: #","bytes":"#.utf8)
        ResponseHeadWriter.appendDecimal(line.bytes, to: &bytes)
        if let cache = line.cache {
            bytes.append(contentsOf: #","cache":""#.utf8)
            bytes.append(contentsOf: cache.utf8)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(contentsOf: #","client":"#.utf8)
        bytes.append(contentsOf: Self.quoted(line.client).utf8)
        bytes.append(contentsOf: #","duration_ms":"#.utf8)
        AccessLine.appendMilliseconds(elapsed, to: &bytes)
        bytes.append(contentsOf: #","method":""#.utf8)
        bytes.append(contentsOf: line.method.rawValue.utf8)
        bytes.append(contentsOf: #"","protocol":""#.utf8)
        bytes.append(contentsOf: line.wireProtocol.rawValue.utf8)
        bytes.append(contentsOf: #"","request_id":"#.utf8)
        bytes.append(contentsOf: Self.quoted(line.requestID).utf8)
        bytes.append(contentsOf: #","route":"#.utf8)
        bytes.append(contentsOf: Self.quoted(line.route).utf8)
        bytes.append(contentsOf: #","status":"#.utf8)
        ResponseHeadWriter.appendDecimal(line.status, to: &bytes)
        bytes.append(contentsOf: #","trace_id":"#.utf8)
        bytes.append(contentsOf: Self.quoted(line.traceID).utf8)
        if let user = line.user {
            bytes.append(contentsOf: #","user":"#.utf8)
            bytes.append(contentsOf: Self.quoted(user).utf8)
        }
        bytes.append(contentsOf: "}\n".utf8)
    }

    private func appendMessage(_ line: AccessLine, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: line.method.rawValue.utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: line.path.utf8)
        bytes.append(UInt8(ascii: " "))
        ResponseHeadWriter.appendDecimal(line.status, to: &bytes)
    }
}
