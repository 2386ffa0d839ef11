// libFuzzer target for every parser of untrusted bytes above the HTTP codec (scripts/fuzz
// models builds and runs it): client bodies and headers, and origin responses (a broken or
// compromised origin is untrusted too). The first byte picks the parser; the rest is its input.
// Besides "no crash, no leak, no out-of-bounds" (AddressSanitizer), each case checks a
// property: contract JSON the mapping writes parses back; the String and byte forms of the
// Accept-Encoding reader agree; a decoded write holds what its validation promises.
// scripts/fuzz compiles this file into one module with Sources/GatewayModels and
// Sources/Gateway/HTTP/AcceptEncoding.swift (SwiftPM's executables bring a main of their own,
// which libFuzzer's would clash with).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModels(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let selector = data[0] % 14
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch selector {
    case 0:
        _ = try? JSONParser.parse(input)
    case 1:
        _ = try? MultipartParser(boundary: "fuzz").parse(input)
    case 2:
        if let draft = try? ProductDraft.decode(json: input) { checkDraft(draft) }
    case 3:
        if let draft = try? ProductDraft.decode(multipart: input, contentType: "multipart/form-data; boundary=fuzz") {
            checkDraft(draft)
        }
    case 4:
        if let patch = try? ProductPatch.decode(json: input) {
            precondition(!patch.isEmpty && (patch.images.map { (1...5).contains($0.count) } ?? true))
        }
    case 5:
        _ = try? ProductDeletion.decode(json: input)
    case 6:
        let header = String(decoding: input, as: UTF8.self)
        let locale = LocaleResolver().resolve(acceptLanguage: header)
        precondition(!locale.identifier.isEmpty)
        _ = AcceptLanguage.parse(header)
    case 7:
        let header = String(decoding: input, as: UTF8.self)
        // Only text that survives UTF-8 unchanged can be compared byte for byte.
        if Array(header.utf8) == input {
            let fromBytes = input.withUnsafeBytes { AcceptEncoding.allowsGzip(bytes: $0) }
            precondition(AcceptEncoding.allowsGzip(header) == fromBytes, "Accept-Encoding read two ways: \(header)")
        }
    case 8, 9, 10:
        let generation: OriginGeneration = [.v1, .v2, .v2b][Int(selector) - 8]
        if let json = try? generation.pageJSON(bytes: input, page: 1, locale: .koKR, imageURL: { "/img/" + $0.prefix(8) }) {
            precondition((try? JSONParser.parse(json)) != nil, "the contract page is not JSON")
        }
    case 11, 12, 13:
        let generation: OriginGeneration = [.v1, .v2, .v2b][Int(selector) - 11]
        if let json = try? generation.detailJSON(bytes: input, locale: .enUS) {
            precondition((try? JSONParser.parse(json)) != nil, "the contract detail is not JSON")
        }
        _ = OriginDeleteAnswer.productSecret(input)
        _ = OriginDeleteAnswer.archivedTarget(input, basePath: "/base")
        _ = OriginRefusal(originStatus: 400, body: input, redacting: ["secret", "5e1e"])
    default:
        break
    }
    return 0
}

/// What a decoded create promises.
private func checkDraft(_ draft: ProductDraft) {
    precondition(draft.price >= 0 && (draft.discountedPrice.map { $0 >= 0 && $0 <= draft.price } ?? true))
    precondition((1...5).contains(draft.images.count) && draft.images.allSatisfy { !$0.data.isEmpty })
}
