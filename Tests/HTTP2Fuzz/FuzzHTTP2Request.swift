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
    var decoder = RequestDecoder(limits: RequestLimits(maxHeadBytes: 4096, maxTargetBytes: 1024, maxFieldCount: 64, maxBodyBytes: 65536))
    var result = message.withUnsafeMutableBytes { decoder.decode($0) }
    if case .head = result { result = message.withUnsafeMutableBytes { decoder.decode($0) } }
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
