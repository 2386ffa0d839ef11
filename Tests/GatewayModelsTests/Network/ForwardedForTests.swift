import GatewayModels
import Testing
import GatewaySupport

@Suite struct ForwardedForTests {
    static let trusted = AddressRanges(parsing: "10.0.0.0/8,2001:db8:ffff::/48")!

    static func client(peer: String, _ fields: [String]) -> String {
        let buffers = fields.map { Array($0.utf8) }
        let copies: [UnsafeMutableRawBufferPointer] = buffers.map { bytes in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
            copy.copyBytes(from: bytes)
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        return ForwardedFor.client(peer: IPAddress(peer)!, trusted: trusted, count: copies.count) { UnsafeRawBufferPointer(copies[$0]) }
            .description
    }

    @Test func anUntrustedPeerIsTheClientWhateverItForwards() {
        #expect(Self.client(peer: "203.0.113.5", ["198.51.100.1"]) == "203.0.113.5")
    }

    @Test func theRightMostUntrustedAddressIsTheClient() {
        // The client wrote 1.2.3.4 itself; the proxy appended what it saw.
        #expect(Self.client(peer: "10.0.0.2", ["1.2.3.4, 198.51.100.7"]) == "198.51.100.7")
        #expect(Self.client(peer: "10.0.0.2", ["1.2.3.4, 198.51.100.7, 10.0.0.9"]) == "198.51.100.7")
        #expect(Self.client(peer: "10.0.0.2", ["1.2.3.4", "198.51.100.7,10.1.1.1"]) == "198.51.100.7")
        #expect(Self.client(peer: "10.0.0.2", ["2001:db8:1:2::9, 2001:db8:ffff::1"]) == "2001:db8:1:2:0:0:0:9")
    }

    @Test func whenEveryHopIsTrustedTheLeftMostIsTheClient() {
        #expect(Self.client(peer: "10.0.0.2", ["10.0.0.7, 10.0.0.8"]) == "10.0.0.7")
        #expect(Self.client(peer: "10.0.0.2", []) == "10.0.0.2")
        #expect(Self.client(peer: "10.0.0.2", [""]) == "10.0.0.2")
    }

    @Test func garbageEndsTheWalkAtTheProxyThatWroteIt() {
        #expect(Self.client(peer: "10.0.0.2", ["198.51.100.7, unknown"]) == "10.0.0.2")
        #expect(Self.client(peer: "10.0.0.2", ["junk, 10.0.0.9"]) == "10.0.0.9")
        #expect(Self.client(peer: "10.0.0.2", ["198.51.100.7, , 10.0.0.9"]) == "198.51.100.7")
    }
}
