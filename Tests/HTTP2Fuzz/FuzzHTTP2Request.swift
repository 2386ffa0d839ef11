// libFuzzer target for what the gateway does with an HTTP/2 request's fields (scripts/fuzz
// builds and runs it as `http2-request`): HTTP2RequestAssembly collects them as HPACK hands
// them over (nghttp2 has checked them by RFC 9113), writes the HTTP/1.1 message, and
// RequestDecoder reads it. The input is a list of fields, each `[kind][name length][value
// length][name][value]` (kind picks a pseudo-header field or a regular one), then the body.
// Fields nghttp2 would refuse are left out, as nghttp2 leaves them out. Properties: the header
// list size is RFC 9113's count; a message the decoder accepts has exactly the fields given
// (none injected, none lost), the method and body given; and nothing traps.
// scripts/fuzz compiles this file into one module with Sources/HTTPCodec.
#if !FUZZ_ONE_MODULE
import HTTPCodec
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP2Request(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var assembly = HTTP2RequestAssembly(maxHeaderListSize: 2048)
    var index = 0
    var regular = 0
    var listSize = 0
    var sawHost = false
    var authority: [UInt8] = []
    var method: [UInt8] = []
    let pseudo = [":method", ":path", ":authority", ":scheme"].map { Array($0.utf8) }
    while index + 3 <= input.count {
        let kind = input[index]
        let nameLength = Int(input[index + 1] % 24)
        let valueLength = Int(input[index + 2])
        index += 3
        if kind == 0xff { break }
        guard index + nameLength + valueLength <= input.count else { break }
        var name = Array(input[index..<(index + nameLength)])
        let value = Array(input[index + nameLength..<(index + nameLength + valueLength)])
        index += nameLength + valueLength
        if kind < 0x40 { name = pseudo[Int(kind) % 4] }
        guard accepts(name: name, value: value) else { continue }
        listSize += name.count + value.count + 32
        if listSize <= 2048 {
            if name == pseudo[0] { method = value }
            if name == pseudo[2] { authority = value }
            if name == Array("host".utf8) { sawHost = true }
            if name.first != UInt8(ascii: ":") && name != Array("content-length".utf8) { regular += 1 }
        }
        name.withUnsafeBytes { name in value.withUnsafeBytes { value in assembly.add(name: name, value: value) } }
    }
    let body = index < input.count ? Array(input[index...]) : []
    precondition(assembly.headerListSize == listSize, "header list size \(assembly.headerListSize), not \(listSize)")
    precondition(assembly.isOverLimit == (listSize > 2048))
    var message = assembly.message(body: body)
    let limits = limitsFor(input)
    var decoder = RequestDecoder(limits: limits)
    var result = message.withUnsafeMutableBytes { decoder.decode($0) }
    // The direct reading (what the gateway does) against the decoder's reading of the message
    // (the oracle): the same verdict, the same head, the same body. First the head alone, as a
    // stream with a body reads it when its HEADERS end (the message without the body).
    if !assembly.isOverLimit {
        var early = assembly
        let direct = early.head(limits: limits)
        var bare = assembly.message(body: [])
        var bareDecoder = RequestDecoder(limits: limits)
        let oracle = bare.withUnsafeMutableBytes { bareDecoder.decode($0) }
        let directText = early.bytes.withUnsafeBytes { headText(direct, in: $0) }
        let oracleText = bare.withUnsafeBytes { headText(oracle, in: $0) }
        precondition(directText == oracleText, "head read directly: \(directText)\ndecoded: \(oracleText)")
    }
    if case .head = result { result = message.withUnsafeMutableBytes { decoder.decode($0) } }
    if !assembly.isOverLimit {
        var whole = assembly
        body.withUnsafeBytes { whole.appendBody($0) }
        let direct = whole.request(limits: limits)
        let directText = whole.bytes.withUnsafeBytes { direct.summary(in: $0) }
        let oracleText = message.withUnsafeBytes { result.summary(in: $0) }
        precondition(directText == oracleText, "read directly: \(directText)\ndecoded: \(oracleText)")
    }
    guard case .complete(let decoded) = result, !assembly.isOverLimit else { return 0 }
    let synthesizedHost = !sawHost && !authority.isEmpty
    let expected = regular + (synthesizedHost ? 1 : 0) + (body.isEmpty ? 0 : 1)
    precondition(decoded.head.fields.count == expected, "\(decoded.head.fields.count) fields decoded, \(expected) given")
    message.withUnsafeBytes { bytes in
        precondition(decoded.head.method.bytes(in: bytes).elementsEqual(method), "another method decoded")
        precondition(decoded.body.bytes(in: bytes).elementsEqual(body), "another body decoded")
    }
    return 0
}

/// Limits of four shapes, chosen by the input's length: roomy; small; a head limit below the
/// target's (431 on a long request line); a head limit between the target's and its line
/// allowance (414), with few fields and a small body limit, an upload route too.
private func limitsFor(_ input: [UInt8]) -> RequestLimits {
    switch input.count % 4 {
    case 0: RequestLimits(maxHeadBytes: 4096, maxTargetBytes: 1024, maxFieldCount: 64, maxBodyBytes: 65536)
    case 1: RequestLimits(maxHeadBytes: 300, maxTargetBytes: 100, maxFieldCount: 8, maxBodyBytes: 100)
    case 2: RequestLimits(maxHeadBytes: 150, maxTargetBytes: 200, maxFieldCount: 64, maxBodyBytes: 65536)
    default:
        RequestLimits(
            maxHeadBytes: 250, maxTargetBytes: 200, maxFieldCount: 4, maxBodyBytes: 10, maxUploadBytes: 50,
            uploadRoutes: [UploadRoute(method: "POST", path: "/u")])
    }
}

/// A head's verdict as text: the head of `.head` and of `.complete` alike (the body aside).
private func headText(_ result: RequestDecodeResult, in bytes: UnsafeRawBufferPointer) -> String {
    switch result {
    case .head(let head): head.summary(in: bytes)
    case .complete(let message): message.head.summary(in: bytes)
    case .needMore, .failure: result.summary(in: bytes)
    }
}

/// What nghttp2 (1.52, RFC 9113 checks on) lets through to the header callback: a pseudo-header
/// field's value without white space or controls (a method a token); a regular field's name of
/// lowercase token characters that is not connection-specific (`te` only as `trailers`); a
/// value without NUL, CR or LF, other controls or DEL, or white space at either end.
private func accepts(name: [UInt8], value: [UInt8]) -> Bool {
    guard !name.isEmpty else { return false }
    if name.first == UInt8(ascii: ":") {
        guard !value.isEmpty, value.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { return false }
        if name == Array(":method".utf8) { return value.allSatisfy(isToken) }
        if name == Array(":path".utf8) { return value.first == UInt8(ascii: "/") || value == [UInt8(ascii: "*")] }
        return true
    }
    guard name.allSatisfy({ isToken($0) && !($0 >= 65 && $0 <= 90) }) else { return false }
    let text = String(decoding: name, as: UTF8.self)
    if ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"].contains(text) { return false }
    if text == "te" && value != Array("trailers".utf8) { return false }
    guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7f) }) else { return false }
    if let first = value.first, first == 0x20 || first == 0x09 { return false }
    if let last = value.last, last == 0x20 || last == 0x09 { return false }
    return true
}

private func isToken(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
    default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}
