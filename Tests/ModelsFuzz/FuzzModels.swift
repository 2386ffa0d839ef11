// libFuzzer targets for every parser of untrusted bytes above the HTTP codec: client bodies
// and headers, image tokens, and origin responses (a broken or compromised origin is
// untrusted too). One binary; the environment variable FUZZ_PARSER names the parser each run
// feeds (scripts/fuzz <parser> sets it and keeps one corpus per parser). Besides "no crash,
// no leak, no out-of-bounds" (AddressSanitizer), each parser is held to a property, checked
// with a trap: parsed JSON written back parses to the same value; the header readers agree
// with the plain reference readers below; a decoded write holds what its validation
// promises; an image token is the one encoding of its parts; contract JSON the mapping
// writes parses back.
// scripts/fuzz compiles this file into one module with Sources/GatewayModels,
// Sources/Gateway/Images/ImageToken.swift and the bearer token reader of Sources/Authentication, against HTTPCodec built as a module of its own
// (SwiftPM's executables bring a main of their own, which libFuzzer's would clash with).
import Foundation
import GatewaySupport

/// The parsers, by the name FUZZ_PARSER gives.
enum FuzzedParser: String, CaseIterable {
    case json, multipart
    case createJSON = "create-json", createMultipart = "create-multipart"
    case updateJSON = "update-json", updateMultipart = "update-multipart", deleteJSON = "delete-json"
    case acceptLanguage = "accept-language", acceptEncoding = "accept-encoding", imageAccept = "image-accept", imageToken = "image-token"
    case jwt
    case v1Page = "v1-page", v2Page = "v2-page", v2bPage = "v2b-page"
    case v1Detail = "v1-detail", v2Detail = "v2-detail", v2bDetail = "v2b-detail"
    case originAnswers = "origin-answers"
    case forwardedFor = "forwarded-for", traceparent
}

let fuzzedParser: FuzzedParser = {
    guard let name = getenv("FUZZ_PARSER").map({ String(cString: $0) }), let parser = FuzzedParser(rawValue: name) else {
        fatalError("FUZZ_PARSER must name one of: \(FuzzedParser.allCases.map(\.rawValue).joined(separator: " "))")
    }
    return parser
}()

private let formType = "multipart/form-data; boundary=fuzz"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModels(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    switch fuzzedParser {
    case .json:
        if let value = try? JSONParser.parse(input), !containsNaN(value) {
            var writer = JSONWriter()
            write(value, into: &writer)
            precondition((try? JSONParser.parse(writer.bytes)) == value, "written back, the JSON reads differently")
        }
    case .multipart:
        if let parts = try? MultipartParser(boundary: "fuzz").parse(input) {
            precondition(parts.count <= 100, "more parts than the limit")
        }
    case .createJSON:
        if let draft = try? ProductDraft.decode(json: input) { checkDraft(draft) }
    case .createMultipart:
        if let draft = try? ProductDraft.decode(multipart: input, contentType: formType) { checkDraft(draft) }
    case .updateJSON:
        if let patch = try? ProductPatch.decode(json: input) { checkPatch(patch) }
    case .updateMultipart:
        if let patch = try? ProductPatch.decode(multipart: input, contentType: formType) { checkPatch(patch) }
    case .deleteJSON:
        _ = try? ProductDeletion.decode(json: input)
    case .acceptLanguage:
        let header = String(decoding: input, as: UTF8.self)
        let ranges = AcceptLanguage.parse(header)
        let expected = referenceLanguageRanges(Array(header.utf8))
        precondition(ranges.map(\.tag) == expected.map(\.tag) && ranges.map(\.quality) == expected.map(\.quality),
                     "Accept-Language read differently from the reference: \(header)")
        precondition(!LocaleResolver().resolve(acceptLanguage: header).identifier.isEmpty)
    case .acceptEncoding:
        var read: [([UInt8], Int?)] = []
        let complete = input.withUnsafeBytes { bytes in
            WeightedList.forEach(bytes) { value, weight in
                read.append((Array(value), weight))
                return true
            }
        }
        let expected = referenceList(input)
        precondition(read.map(\.0) == expected.elements.map(\.0) && read.map(\.1) == expected.elements.map(\.1)
                     && complete == expected.complete, "the list read differently from the reference")
        let allowed = input.withUnsafeBytes { AcceptEncoding.allowsGzip(bytes: $0) }
        precondition(allowed == referenceAllowsGzip(expected), "Accept-Encoding decided differently from the reference")
    case .jwt:
        // A token read is at most 8 KiB, has exactly two dots, and its signing input is what
        // precedes the second; its required claims are there and its dates in range.
        if let token = try? CompactToken.read(input) {
            precondition(input.count <= CompactToken.maxLength && input.filter { $0 == UInt8(ascii: ".") }.count == 2)
            let secondDot = input.lastIndex(of: UInt8(ascii: "."))!
            precondition(token.signingInput == Array(input[..<secondDot]), "the signing input is not the first two segments")
            precondition(!token.claims.subject.isEmpty && (0...TokenClaims.latestDate).contains(token.claims.expiresAt))
            precondition(Base64URL.encode(token.signature) == String(decoding: input[(secondDot + 1)...], as: UTF8.self),
                         "the signature's base64url is not canonical")
        }
    case .imageAccept:
        let offered: [Set<ImageAccept.Choice>] = [[.avif, .webp], [.webp], [.avif], []]
        for formats in offered {
            let chosen = input.withUnsafeBytes { ImageAccept.choose(bytes: $0, offered: formats) }
            precondition(chosen == referenceImageChoice(referenceList(input), offered: formats), "Accept chose another image format than the reference")
            precondition(chosen == .original || formats.contains(chosen), "a format that is not offered")
        }
    case .imageToken:
        input.withUnsafeBufferPointer { token in
            if let (url, mac) = ImageToken.parts(token) {
                precondition(Array(ImageToken.encode(url: url, mac: mac).utf8) == input, "a token that is not the one encoding of its parts")
            }
            if let box = ImageToken.sealed(token) {
                precondition(ImageToken.parts(token) == nil, "a token read as both layouts")
                precondition(Array(ImageToken.encodeSealed(box).utf8) == input, "a sealed token that is not the one encoding of its box")
            }
        }
    case .v1Page, .v2Page, .v2bPage:
        let generation: OriginGeneration = fuzzedParser == .v1Page ? .v1 : fuzzedParser == .v2Page ? .v2 : .v2b
        if let json = try? generation.pageJSON(bytes: input, page: 1, locale: .koKR, imageURL: { "/img/" + $0.prefix(8) }) {
            precondition((try? JSONParser.parse(json)) != nil, "the contract page is not JSON")
        }
    case .v1Detail, .v2Detail, .v2bDetail:
        let generation: OriginGeneration = fuzzedParser == .v1Detail ? .v1 : fuzzedParser == .v2Detail ? .v2 : .v2b
        if let json = try? generation.detailJSON(bytes: input, locale: .enUS) {
            precondition((try? JSONParser.parse(json)) != nil, "the contract detail is not JSON")
        }
    case .forwardedFor:
        // Each entry read as inet_pton reads it (ports and brackets aside), and the client
        // found is the peer or one of the entries.
        input.withUnsafeBytes { bytes in
            let whole = IPAddress(bytes)
            if !input.contains(0) { precondition(whole == referenceAddress(input), "an address read differently from inet_pton") }
            let peer = IPAddress(ipv4: 0x0A00_0001)
            let trusted = AddressRanges(parsing: "10.0.0.0/8,2001:db8::/32")!
            let client = ForwardedFor.client(peer: peer, trusted: trusted, count: 1) { _ in bytes }
            let entries = input.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).compactMap { entry in
                Array(entry).withUnsafeBytes { IPAddress.forwarded($0) }
            }
            precondition(client == peer || entries.contains(client), "a client that is neither the peer nor an entry")
            // A trusted proxy is the client only when every hop is trusted or one was unreadable.
            let nonBlank = input.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
                .filter { !$0.allSatisfy { $0 == 0x20 || $0 == 0x09 } }.count
            precondition(
                client == peer || !trusted.contains(client) || entries.allSatisfy(trusted.contains) || entries.count < nonBlank,
                "a trusted proxy as the client")
        }
    case .traceparent:
        let text = String(decoding: input, as: UTF8.self)
        let context = TraceContext.from(traceparent: text, tracestate: text)
        // The stored answers' byte-level reading (no text made) accepts exactly what the
        // parser keeps, with the same sampled flag and trace id.
        let peeked = input.withUnsafeBytes { TraceContext.peek(traceparent: $0) }
        precondition((peeked != nil) == (context.parentID != nil), "peek and the parser disagree on validity")
        if let peeked {
            precondition(peeked.sampled == context.isSampled && peeked.traceIDLow == context.traceIDLow, "peek and the parser disagree")
        }
        precondition(context.traceID.utf8.count == 32 && context.traceID.utf8.allSatisfy(isLowerHex), "a trace id that is not 32 lower-case hex digits")
        if let parent = context.parentID {
            // Kept: the fields are the input's, and the input has the level-1 shape.
            precondition(text.utf8.count >= 55 && Array(text.utf8)[3..<35].elementsEqual(context.traceID.utf8), "a kept trace id not from the input")
            precondition(Array(text.utf8)[36..<52].elementsEqual(parent.utf8) && parent != "0000000000000000", "a kept parent id not from the input")
            precondition(!text.hasPrefix("ff-") && (!text.hasPrefix("00-") || text.utf8.count == 55), "a version-00 traceparent of another length kept")
        } else {
            precondition(context.state == nil, "tracestate kept without a valid traceparent")
        }
    case .originAnswers:
        if let secret = OriginDeleteAnswer.productSecret(input) { precondition(!secret.isEmpty) }
        if let target = OriginDeleteAnswer.archivedTarget(input, basePath: "/base") {
            precondition(target.hasPrefix("/api/products/") && !target.dropFirst(14).contains("/"), "an archived target outside the products: \(target)")
        }
        // Redacting the detail again changes nothing: no whole-word secret is left in it.
        let secrets = ["secret-1", "5e1e3f0a"]
        let refusal = OriginRefusal(originStatus: 400, body: input, redacting: secrets)
        precondition(secrets.allSatisfy { OriginRefusal.redact($0, in: refusal.detail) == refusal.detail }, "a secret in a refusal's text")
    }
    return 0
}

// MARK: - Properties

/// `inet_pton`'s reading of `bytes` (IPv4 as IPv4-mapped), the reference for IPAddress.
private func referenceAddress(_ bytes: [UInt8]) -> IPAddress? {
    let text = String(decoding: bytes, as: UTF8.self)
    guard Array(text.utf8) == bytes else { return nil }
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return IPAddress(ipv4: UInt32(bigEndian: v4.s_addr)) }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
    return withUnsafeBytes(of: v6) { raw in
        IPAddress(
            high: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
            low: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }
}

private func isLowerHex(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
}

/// What a decoded create promises.
private func checkDraft(_ draft: ProductDraft) {
    precondition(draft.price >= 0 && (draft.discountedPrice.map { $0 >= 0 && $0 <= draft.price } ?? true))
    precondition((1...5).contains(draft.images.count) && draft.images.allSatisfy { !$0.data.isEmpty })
}

/// What a decoded update promises.
private func checkPatch(_ patch: ProductPatch) {
    precondition(!patch.isEmpty && (patch.images.map { (1...5).contains($0.count) } ?? true))
}

private func containsNaN(_ value: JSONValue) -> Bool {
    switch value {
    case .number(let number): number.isNaN
    case .array(let values): values.contains(where: containsNaN)
    case .object(let members): members.values.contains(where: containsNaN)
    case .null, .bool, .string: false
    }
}

private func write(_ value: JSONValue, into writer: inout JSONWriter) {
    switch value {
    case .null: writer.null()
    case .bool(let bool): writer.bool(bool)
    case .number(let number): writer.decimal(number)
    case .string(let string): writer.string(string)
    case .array(let values):
        writer.beginArray()
        for value in values { write(value, into: &writer) }
        writer.endArray()
    case .object(let members):
        writer.beginObject()
        for (name, value) in members {
            writer.key(name)
            write(value, into: &writer)
        }
        writer.endObject()
    }
}

// MARK: - Reference readers
// Plain readers of the same grammar as WeightedList, AcceptEncoding and AcceptLanguage, written
// with whole-collection operations instead of index arithmetic, so that a slip in one is not
// the same slip in the other.

private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

private func trimmed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    Array(Array(bytes.drop(while: isSpace).reversed().drop(while: isSpace)).reversed())
}

/// Values and weights (thousandths; nil for a malformed q) of the first 32 non-empty
/// elements, those over 128 bytes as an empty value with no weight; and whether there were
/// no more than 32.
private func referenceList(_ header: [UInt8]) -> (elements: [([UInt8], Int?)], complete: Bool) {
    let nonEmpty = header.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map(trimmed).filter { !$0.isEmpty }
    let elements = nonEmpty.prefix(32).compactMap { element -> ([UInt8], Int?)? in
        if element.count > 128 { return ([], nil) }
        let pieces = element.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map(trimmed)
        guard let value = pieces.first, !value.isEmpty else { return nil }
        var weight: Int? = 1000
        for parameter in pieces.dropFirst() {
            guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")) else { continue }
            guard String(decoding: trimmed(parameter[..<equals]), as: UTF8.self).lowercased() == "q" else { continue }
            weight = referenceQValue(String(decoding: trimmed(parameter[(equals + 1)...]), as: UTF8.self))
            break
        }
        return (value, weight)
    }
    return (elements, nonEmpty.count <= 32)
}

private func referenceQValue(_ text: String) -> Int? {
    let digits = Set("0123456789")
    let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let fraction = parts.count == 2 ? parts[1] : ""
    guard fraction.count <= 3, fraction.allSatisfy(digits.contains) else { return nil }
    let thousandths = Int(fraction.padding(toLength: 3, withPad: "0", startingAt: 0))!
    switch parts[0] {
    case "0": return thousandths
    case "1": return thousandths == 0 ? 1000 : nil
    default: return nil
    }
}

/// The documented decision: the first gzip decides unless an unread element came before it;
/// else the first `*`, when the whole header was read.
private func referenceAllowsGzip(_ list: (elements: [([UInt8], Int?)], complete: Bool)) -> Bool {
    let names = list.elements.map { String(decoding: $0.0, as: UTF8.self).lowercased() }
    if let gzip = names.firstIndex(where: { $0 == "gzip" || $0 == "x-gzip" }) {
        return !names[..<gzip].contains("") && (list.elements[gzip].1 ?? 0) > 0
    }
    guard list.complete, !names.contains(""), let star = names.firstIndex(of: "*") else { return false }
    return (list.elements[star].1 ?? 0) > 0
}

/// The last `image/avif` and `image/webp` (ASCII case ignored) with their weights; the newer
/// format named with the higher q wins, AVIF on a tie; wildcards and unread elements never
/// count.
private func referenceImageChoice(_ list: (elements: [([UInt8], Int?)], complete: Bool), offered: Set<ImageAccept.Choice>) -> ImageAccept.Choice {
    var avif = 0
    var webp = 0
    for (value, weight) in list.elements {
        let lower = value.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }
        if lower == Array("image/avif".utf8) { avif = weight ?? 0 }
        if lower == Array("image/webp".utf8) { webp = weight ?? 0 }
    }
    if !offered.contains(.avif) { avif = 0 }
    if !offered.contains(.webp) { webp = 0 }
    return avif > 0 && avif >= webp ? .avif : webp > 0 ? .webp : .original
}

private func referenceLanguageRanges(_ header: [UInt8]) -> [AcceptLanguage.Range] {
    let letters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
    let ranges = referenceList(header).elements.compactMap { value, weight -> (String, Double)? in
        guard let weight, !value.isEmpty else { return nil }
        let text = String(decoding: value, as: UTF8.self)
        let tag = text == "*" ? "*" : String(text.map { $0 == "_" ? "-" : $0 }).lowercased()
        guard tag == "*" || (text.allSatisfy(\.isASCII) && tag.allSatisfy(letters.contains)) else { return nil }
        return (tag, Double(weight) / 1000)
    }
    // Swift's sort is not stable: order by quality, then by position.
    return ranges.enumerated().sorted { ($0.element.1, -$0.offset) > ($1.element.1, -$1.offset) }
        .map { AcceptLanguage.Range(tag: $0.element.0, quality: $0.element.1) }
}
