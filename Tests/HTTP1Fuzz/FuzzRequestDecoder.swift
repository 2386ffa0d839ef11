// libFuzzer target for the request decoder (scripts/fuzz builds and runs it). The first byte
// picks a split size; the rest is a request stream. The stream is decoded in one piece and in
// pieces of that size, as a connection would receive it, and the two readings must agree
// message for message (head fields, body) and end the same way. Any disagreement, range
// outside the buffer, or crash is a finding.
// scripts/fuzz compiles this file into one module with Sources/HTTPCodec (SwiftPM's
// executables bring a main of their own, which libFuzzer's would clash with).
#if !FUZZ_ONE_MODULE
import HTTPCodec
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let split = Int(data[0] % 32) + 1
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let limits = RequestLimits(maxHeadBytes: 2048, maxTargetBytes: 512, maxFieldCount: 32, maxBodyBytes: 4096)
    let whole = decodeAll(stream, pieceSize: stream.count, limits: limits)
    let pieces = decodeAll(stream, pieceSize: split, limits: limits)
    if whole != pieces {
        fatalError("split \(split) read the stream differently: \(whole) vs \(pieces)")
    }
    return 0
}

/// Every message (method, target, fields, body) and how the stream ended.
private func decodeAll(_ stream: [UInt8], pieceSize: Int, limits: RequestLimits) -> [String] {
    var decoder = RequestDecoder(limits: limits)
    var buffer: [UInt8] = []
    var offset = 0
    var out: [String] = []
    while true {
        let result = buffer.withUnsafeMutableBytes { decoder.decode($0) }
        switch result {
        case .head(let head):
            precondition(head.length <= buffer.count, "head longer than the buffer")
        case .complete(let message):
            precondition(message.length <= buffer.count && message.body.upperBound <= message.length, "message outside the buffer")
            precondition(message.body.lowerBound >= message.head.length, "body inside the head")
            out.append(buffer.withUnsafeBytes { bytes in
                let head = message.head
                let fields = head.fields.map { $0.name.string(in: bytes) + ":" + $0.value.string(in: bytes) }
                return head.method.string(in: bytes) + " " + head.target.string(in: bytes) + " " + fields.joined(separator: "|")
                    + " body=" + message.body.string(in: bytes)
            })
            buffer.removeFirst(message.length)
        case .failure(let error):
            out.append("failure \(error)")
            return out
        case .needMore:
            guard offset < stream.count else {
                out.append(buffer.allSatisfy { $0 == 0x0D || $0 == 0x0A } ? "end" : "incomplete")
                return out
            }
            let next = min(stream.count, offset + pieceSize)
            buffer.append(contentsOf: stream[offset..<next])
            offset = next
        }
    }
}
