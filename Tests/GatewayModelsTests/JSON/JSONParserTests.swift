import Foundation
import GatewayModels
import Testing
import TestSupport
import GatewaySupport

@Suite struct JSONParserTests {
    /// Valid JSON is never refused for a number Decimal cannot hold: it is NaN, and readers
    /// refuse it only where they read it.
    @Test func numbersBeyondDecimalAreNaNAndRefusedWhereRead() throws {
        guard case .object(let members) = try JSONParser.parse(#"{"x":1e400,"y":-6.4e265,"password":"pw"}"#.utf8),
            case .number(let x)? = members["x"], case .number(let y)? = members["y"]
        else { Issue.record("not an object of numbers"); return }
        #expect(x.isNaN && y.isNaN)
        let deletion = try ProductDeletion.decode(json: Array(#"{"x":1e400,"password":"pw"}"#.utf8))
        #expect(deletion.password == "pw")
        #expect(throws: ValidationFailure([FieldError(field: "price", message: "price is out of range.")])) {
            try ProductPatch.decode(json: Array(#"{"password":"pw","price":1e400}"#.utf8))
        }
        #expect(throws: JSONShapeError.self) {
            try V1Item(json: Array(#"{"id":1,"title":"t","price":1e400,"currency":"KRW","stock":1,"thumbnails":[],"registration_date":0}"#.utf8))
        }
    }

    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#" {"a":[1,-2.5,1.23123123E8,0,true,false,null,"x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude17"],"b":{},"c":[]} "#.utf8)
        #expect(value == .object([
            "a": .array([
                .number(1), .number(Decimal(string: "-2.5")!), .number(123_123_123), .number(0), .bool(true), .bool(false), .null,
                .string("x\"\\/\u{8}\u{c}\n\r\té😗"),
            ]),
            "b": .object([:]),
            "c": .array([]),
        ]))
    }

    @Test(arguments: [
        ("16.9", "16.9"), ("16.90", "16.9"), ("123123.0", "123123"), ("1611523563.7237701", "1611523563.7237701"),
        ("-0.001", "-0.001"), ("1e3", "1000"), ("1E-3", "0.001"), ("2.5e+2", "250"), ("0.0", "0"),
        ("12345678901234567890123", "12345678901234567890123"), ("1.2345678901234567890123", "1.2345678901234567890123"),
        ("9223372036854775807", "9223372036854775807"), ("1000000000000", "1000000000000"),
    ])
    func numbersAreExact(text: String, expected: String) throws {
        guard case .number(let number) = try JSONParser.parse(text.utf8) else {
            Issue.record("not a number"); return
        }
        #expect(DecimalText.json(number) == expected)
        #expect(number == Decimal(string: text))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "NaN", "tru", "nul", "'a'", "\"a", "\"\\x\"",
        "\"\\ud83d\"", "\"a\u{1}\"", "[1] 2", "{\"a\" 1}", "{1:2}", "1e", "-", "// c\n1",
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text.utf8) }
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParser.Failure(offset: 512, reason: "nested deeper than 512")) { try JSONParser.parse(deep.utf8) }
    }

    /// Strict limits (a token's header and claims): a key named twice is refused (by
    /// default the last one wins), and depth and the count of values are bounded.
    @Test func strictLimitsRefuseDuplicatesDepthAndCount() throws {
        let twice = #"{"exp":1,"sub":"a","exp":2}"#
        #expect(try JSONParser.parse(twice.utf8) == .object(["exp": .number(2), "sub": .string("a")]))
        let strict = JSONParser.Limits.strict(maxDepth: 2, maxValues: 4)
        #expect(throws: JSONParser.Failure(offset: 19, reason: "duplicate key")) { try JSONParser.parse(twice.utf8, limits: strict) }
        // The same key in two objects is not a duplicate.
        #expect(try JSONParser.parse(#"{"a":{"a":1}}"#.utf8, limits: strict) == .object(["a": .object(["a": .number(1)])]))
        #expect(throws: JSONParser.Failure(offset: 10, reason: "nested deeper than 2")) {
            try JSONParser.parse(#"{"a":{"b":[1]}}"#.utf8, limits: strict)
        }
        // Four values: the object and three members; a fifth is refused where it starts.
        #expect(try JSONParser.parse(#"{"a":1,"b":2,"c":3}"#.utf8, limits: strict) == .object(["a": .number(1), "b": .number(2), "c": .number(3)]))
        #expect(throws: JSONParser.Failure(offset: 23, reason: "more than 4 values")) {
            try JSONParser.parse(#"{"a":1,"b":2,"c":3,"d":4}"#.utf8, limits: strict)
        }
    }

    /// The fast parser and Foundation's `JSONDecoder` agree on every sample, numbers included.
    @Test(arguments: Fixture.allCases)
    func agreesWithJSONDecoderOnEverySample(fixture: Fixture) throws {
        let fast = try JSONParser.parse(fixture.bytes)
        let foundation = try JSONDecoder().decode(JSONValue.self, from: Data(fixture.bytes))
        #expect(fast == foundation)
    }

    /// Property: seeded decimal texts parse to the same `Decimal` as `Decimal(string:)`.
    @Test func seededNumbersMatchDecimalString() throws {
        var generator = SeededGenerator(seed: 23)
        for _ in 0..<3000 {
            let integer = String(UInt64.random(in: 0...UInt64.max, using: &generator) >> UInt64.random(in: 0...63, using: &generator))
            let fraction = Bool.random(using: &generator) ? "." + String(UInt32.random(in: 0...UInt32.max, using: &generator)) : ""
            let exponent = Bool.random(using: &generator) ? "e\(Int.random(in: -30...30, using: &generator))" : ""
            let text = (Bool.random(using: &generator) ? "-" : "") + integer + fraction + exponent
            guard case .number(let number) = try JSONParser.parse(text.utf8) else {
                Issue.record("not a number: \(text)"); continue
            }
            #expect(number == Decimal(string: text), "\(text)")
        }
    }
}
