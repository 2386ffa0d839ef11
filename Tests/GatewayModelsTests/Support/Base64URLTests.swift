import Foundation
import GatewayModels
import TestSupport
import Testing
import GatewaySupport

@Suite struct Base64URLTests {
    /// RFC 4648 §10's vectors, unpadded, and the two characters base64url changes.
    @Test func encodesTheRFCVectors() {
        let vectors: [(String, String)] = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded, "\(plain)")
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode([0xFF, 0xFF, 0xFF]) == "____")
        #expect(Base64URL.encode([0, 0, 0]) == "AAAA")
    }

    /// Foundation's base64 (an independent implementation), made url-safe and unpadded, is the
    /// oracle: every length from 0 to 96, seeded bytes; and every encoding decodes back.
    @Test func agreesWithFoundationAndDecodesBack() {
        var generator = SeededGenerator(seed: 4648)
        for length in 0...96 {
            for _ in 0..<20 {
                let bytes = generator.bytes(length)
                var expected = Data(bytes).base64EncodedString()
                expected = expected.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                while expected.hasSuffix("=") { expected.removeLast() }
                let encoded = Base64URL.encode(bytes)
                #expect(encoded == expected, "\(bytes)")
                if length > 0 { #expect(Base64URL.decode(Array(encoded.utf8)) == bytes) }
            }
        }
    }
}
