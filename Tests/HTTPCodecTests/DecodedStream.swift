import HTTPCodec

/// One request as a test compares it: owned strings, lowercased names.
struct Decoded: Equatable, CustomStringConvertible {
    var method: String
    var target: String
    var path: String
    var query: String?
    var minorVersion: Int
    var fields: [String]
    var body: [UInt8]
    var keepAlive: Bool

    var description: String { "\(method) \(target) 1.\(minorVersion) \(fields) body=\(body.count)" }
}

/// What a connection would make of `stream` delivered in `pieces`: every complete request
/// in order, then the failure or `nil` when the stream ended cleanly between requests, or
/// `.incomplete` when it ended inside one.
struct DecodedStream: Equatable {
    enum End: Equatable { case clean, incomplete, failure(RequestError) }
    var requests: [Decoded] = []
    var end: End = .clean

    init(_ stream: [UInt8], pieces: [Int]? = nil, limits: RequestLimits = RequestLimits()) {
        var decoder = RequestDecoder(limits: limits)
        var buffer: [UInt8] = []
        var offset = 0
        let sizes = pieces ?? [stream.count]
        var pieceIndex = 0
        var inMessage = false
        while true {
            let result = buffer.withUnsafeMutableBytes { decoder.decode($0) }
            switch result {
            case .head:
                inMessage = true
                continue
            case .complete(let message):
                requests.append(buffer.withUnsafeBytes { Self.decoded(message, $0) })
                buffer.removeFirst(message.length)
                inMessage = false
                continue
            case .failure(let error):
                end = .failure(error)
                return
            case .needMore:
                if offset >= stream.count {
                    end = buffer.isEmpty && !inMessage ? .clean : .incomplete
                    return
                }
                let size = max(1, pieceIndex < sizes.count ? sizes[pieceIndex] : sizes.last!)
                pieceIndex += 1
                let next = min(stream.count, offset + size)
                buffer.append(contentsOf: stream[offset..<next])
                offset = next
                inMessage = inMessage || !buffer.isEmpty
            }
        }
    }

    init(_ text: String, pieces: [Int]? = nil, limits: RequestLimits = RequestLimits()) {
        self.init(Array(text.utf8), pieces: pieces, limits: limits)
    }

    static func decoded(_ message: RequestMessage, _ buffer: UnsafeRawBufferPointer) -> Decoded {
        let head = message.head
        return Decoded(
            method: head.method.string(in: buffer), target: head.target.string(in: buffer),
            path: head.path.string(in: buffer), query: head.query.map { $0.string(in: buffer) },
            minorVersion: head.minorVersion,
            fields: head.fields.map { $0.name.string(in: buffer).lowercased() + ": " + $0.value.string(in: buffer) },
            body: Array(message.body.bytes(in: buffer)), keepAlive: head.keepAlive)
    }

    var failure: RequestError? {
        if case .failure(let error) = end { return error }
        return nil
    }
}
