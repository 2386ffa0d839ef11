import Foundation
import GatewayModels
import Testing
import TestSupport
import GatewaySupport

@Suite struct JSONWriterTests {
    @Test func writesCompactJSONInCallOrder() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("b"); writer.integer(-3)
        writer.key("a"); writer.decimal(Decimal(string: "16.9")!)
        writer.key("n"); writer.decimal(nil)
        writer.key("list"); writer.strings(["x", "y"])
        writer.key("t"); writer.bool(true)
        writer.key("empty"); writer.beginObject(); writer.endObject()
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"b":-3,"a":16.9,"n":null,"list":["x","y"],"t":true,"empty":{}}"#)
    }

    @Test func escapesOnlyWhatJSONRequires() {
        var writer = JSONWriter()
        writer.string("a\"b\\c/d\n\t\r\u{01}한글😗")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""a\"b\\c/d\n\t\r\u0001한글😗""#)
    }

    @Test func outputParsesBackToTheSameStrings() throws {
        var generator = SeededGenerator(seed: 3)
        let alphabet = Array("ab\"\\\n\t\u{0}\u{1F} 한😗/")
        for _ in 0..<200 {
            let text = String((0..<Int.random(in: 0...20, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            var writer = JSONWriter()
            writer.beginArray(); writer.string(text); writer.endArray()
            let parsed = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String]
            #expect(parsed == [text])
        }
    }
}
