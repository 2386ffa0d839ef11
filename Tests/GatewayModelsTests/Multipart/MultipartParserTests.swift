import GatewayModels
import Testing

@Suite struct MultipartParserTests {
    private func body(_ text: String) -> [UInt8] {
        Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)
    }

    @Test func parsesFieldsAndFilesInAnyOrder() throws {
        let raw = body("""
        preamble to ignore
        --XyZ
        Content-Disposition: form-data; name="images"; filename="내 사진 1.png"
        Content-Type: image/png

        PNGDATA
        --XyZ\t
        content-disposition: form-data; name="title"

        Hello, 세계
        --XyZ
        Content-Disposition: form-data; name="empty"

        
        --XyZ--
        epilogue
        """)
        let parts = try MultipartParser(contentType: "multipart/form-data; boundary=XyZ").parse(raw)
        #expect(parts.count == 3)
        #expect(parts[0].name == "images")
        #expect(parts[0].filename == "내 사진 1.png")
        #expect(parts[0].contentType == "image/png")
        #expect(parts[0].body == Array("PNGDATA".utf8))
        #expect(parts[1].name == "title")
        #expect(parts[1].text == "Hello, 세계")
        #expect(parts[1].filename == nil)
        #expect(parts[2].body == [])
    }

    @Test func quotedBoundaryAndRFC5987FileName() throws {
        let raw = body("""
        --a b:c
        Content-Disposition: form-data; name="images"; filename="fallback.png"; filename*=UTF-8''%ED%95%9C%EA%B8%80%20%ED%8C%8C%EC%9D%BC.png

        x
        --a b:c--
        """)
        let parser = try MultipartParser(contentType: #"Multipart/Form-Data; charset=utf-8; boundary="a b:c""#)
        #expect(parser.boundary == "a b:c")
        let parts = try parser.parse(raw)
        #expect(parts[0].filename == "한글 파일.png")
    }

    @Test func bodyMayContainBoundaryLikeBytesNotAtALineStart() throws {
        let raw = body("--b\nContent-Disposition: form-data; name=\"x\"\n\nvalue--b and \r--b\n--b--")
        let parts = try MultipartParser(boundary: "b").parse(raw)
        #expect(parts[0].text == "value--b and \r--b")
    }

    @Test(arguments: [
        ("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nvalue", MultipartError.missingCloseDelimiter),
        ("nothing here", .missingOpeningDelimiter),
        ("--b\r\nContent-Disposition: form-data; name=\"x\"\r\nvalue\r\n--b--", .unterminatedHeaders(partIndex: 0)),
        ("--b\r\nno colon here\r\n\r\nv\r\n--b--", .invalidHeader(partIndex: 0, line: "no colon here")),
        ("--b\r\nContent-Type: text/plain\r\n\r\nv\r\n--b--", .missingContentDisposition(partIndex: 0)),
        ("--b\r\nContent-Disposition: attachment; name=\"x\"\r\n\r\nv\r\n--b--", .missingContentDisposition(partIndex: 0)),
        ("--bjunk\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nv\r\n--b--", .malformedDelimiter(partIndex: 0)),
        ("--b\nContent-Disposition: form-data; name=\"x\"\n\nv\n--b--", .malformedDelimiter(partIndex: 0)),
    ] as [(String, MultipartError)])
    func malformedBodiesSayWhatIsWrong(raw: String, expected: MultipartError) throws {
        let parser = try MultipartParser(boundary: "b")
        #expect(throws: expected) { try parser.parse(Array(raw.utf8)) }
    }

    @Test func contentTypeAndBoundaryChecks() {
        #expect(throws: MultipartError.notMultipartFormData("application/json")) { try MultipartParser(contentType: "application/json") }
        #expect(throws: MultipartError.notMultipartFormData("multipart/form-data")) { try MultipartParser(contentType: "multipart/form-data") }
        #expect(throws: MultipartError.invalidBoundary(String(repeating: "x", count: 71))) {
            try MultipartParser(boundary: String(repeating: "x", count: 71))
        }
        #expect(throws: MultipartError.invalidBoundary("a\"b")) { try MultipartParser(boundary: "a\"b") }
        #expect(MultipartError.missingCloseDelimiter.description == "The multipart body ends before its closing boundary.")
    }

    @Test func partLimit() throws {
        let raw = String(repeating: "--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nv\r\n", count: 3) + "--b--"
        let parser = try MultipartParser(boundary: "b", maxParts: 2)
        #expect(throws: MultipartError.tooManyParts(limit: 2)) { try parser.parse(Array(raw.utf8)) }
    }
}
