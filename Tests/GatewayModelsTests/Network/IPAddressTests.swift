import Foundation
import GatewayModels
import Testing
import GatewaySupport

@Suite struct IPAddressTests {
    /// `inet_pton`'s reading of `text` as 128 bits (IPv4 mapped), or nil: the oracle.
    static func oracle(_ text: String) -> IPAddress? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return IPAddress(ipv4: UInt32(bigEndian: v4.s_addr)) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: v6) { bytes in
            IPAddress(
                high: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    static let samples = [
        "0.0.0.0", "127.0.0.1", "255.255.255.255", "192.168.1.10", "10.0.0.256", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1..2.3",
        "1.2.3.4 ", " 1.2.3.4", "1.2.3.-4", "::", "::1", "1::", "2001:db8::1", "2001:DB8:0:0:8:800:200C:417A", "fe80::1%eth0",
        "::ffff:192.0.2.128", "::192.0.2.128", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
        "1::2::3", ":1:2::", "1:2::3:", "12345::", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3", "g::1", ":::",
        "1:", ":", "", "1.2.3.4:80", "[::1]", "::ffff:1.2.3.04", "0:0:0:0:0:0:0:0", "1:0::0:1",
    ]

    @Test(arguments: samples)
    func readsAsInetPtonDoes(text: String) {
        #expect(IPAddress(text) == Self.oracle(text))
    }

    /// Random strings over the characters addresses are made of, against the oracle.
    @Test func agreesWithInetPtonOnRandomText() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEF:.:.::1")
        var checked = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...20, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(IPAddress(text) == Self.oracle(text), "\(text)")
            checked += 1
        }
        #expect(checked == 20_000)
    }

    @Test func readsIPv4AsMapped() throws {
        let address = try #require(IPAddress("192.0.2.7"))
        #expect(address.isIPv4)
        #expect(address.high == 0)
        #expect(address.low == 0x0000_FFFF_C000_0207)
        #expect(address.description == "192.0.2.7")
        #expect(IPAddress("2001:db8::7")?.description == "2001:db8:0:0:0:0:0:7")
    }

    @Test(arguments: [
        ("203.0.113.9", "203.0.113.9"), (" 203.0.113.9\t", "203.0.113.9"), ("203.0.113.9:4431", "203.0.113.9"),
        ("[2001:db8::1]", "2001:db8:0:0:0:0:0:1"), ("[2001:db8::1]:443", "2001:db8:0:0:0:0:0:1"), ("2001:db8::1", "2001:db8:0:0:0:0:0:1"),
    ])
    func readsForwardedEntries(text: String, expected: String) {
        let address = Array(text.utf8).withUnsafeBytes { IPAddress.forwarded($0) }
        #expect(address?.description == expected)
    }

    @Test(arguments: ["unknown", "_hidden", "203.0.113.9:", "203.0.113.9:123456", "[2001:db8::1", "[2001:db8::1]x", "1.2.3.4:80:90", ""])
    func refusesOtherForwardedEntries(text: String) {
        #expect(Array(text.utf8).withUnsafeBytes { IPAddress.forwarded($0) } == nil)
    }
}
