import GatewayModels
import Testing
import TestSupport

@Suite struct MultipartFormDataTests {
    @Test func exactCRLFFraming() {
        let form = MultipartFormData(parts: [
            .field("title", "맥북"),
            .file("images[]", filename: "a b.png", contentType: "image/png", data: [1, 2]),
        ], boundary: "B")
        let expected = "--B\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n맥북\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"images[]\"; filename=\"a b.png\"\r\nContent-Type: image/png\r\n\r\n\u{1}\u{2}\r\n"
            + "--B--\r\n"
        #expect(form.encoded() == Array(expected.utf8))
        #expect(form.contentType == "multipart/form-data; boundary=B")
    }

    @Test func freshRandomBoundaryEachTime() {
        let first = MultipartFormData(parts: [.field("a", "b")])
        let second = MultipartFormData(parts: [.field("a", "b")])
        #expect(first.boundary != second.boundary)
        #expect(first.boundary.hasPrefix("OpenMarketGateway-"))
        #expect(first.boundary.count == 18 + 32)
        #expect(MultipartParser.isValidBoundary(first.boundary))
    }

    @Test func quotesAndLineBreaksInNamesArePercentEncoded() throws {
        let form = MultipartFormData(parts: [.file("images", filename: "a\"b\r\n.png", contentType: "image/png", data: [9])], boundary: "B")
        let parts = try MultipartParser(boundary: "B").parse(form.encoded())
        #expect(parts[0].filename == "a%22b%0D%0A.png")
    }

    /// Property: encode then parse gives back the same parts, for seeded names, file names
    /// (spaces, Korean) and binary bodies, including bodies full of CR, LF and dashes.
    @Test func roundTripsSeededParts() throws {
        var generator = SeededGenerator(seed: 17)
        let nameAlphabet = Array("abc XYZ_-한글사진.0123")
        let bodyAlphabet: [UInt8] = [13, 10, 45, 0, 255, 65, 66]
        for _ in 0..<300 {
            var parts: [MultipartPart] = []
            for index in 0..<Int.random(in: 1...6, using: &generator) {
                let name = "f\(index)" + String((0..<Int.random(in: 0...8, using: &generator)).map { _ in nameAlphabet.randomElement(using: &generator)! })
                let body = (0..<Int.random(in: 0...64, using: &generator)).map { _ in bodyAlphabet.randomElement(using: &generator)! }
                if Bool.random(using: &generator) {
                    parts.append(.file(name, filename: name + ".png", contentType: "image/png", data: body))
                } else {
                    parts.append(MultipartPart(name: name, body: body))
                }
            }
            let form = MultipartFormData(parts: parts)
            let parsed = try MultipartParser(contentType: form.contentType).parse(form.encoded())
            #expect(parsed.map(\.name) == parts.map(\.name))
            #expect(parsed.map(\.filename) == parts.map(\.filename))
            #expect(parsed.map(\.contentType) == parts.map(\.contentType))
            #expect(parsed.map(\.body) == parts.map(\.body))
        }
    }
}
