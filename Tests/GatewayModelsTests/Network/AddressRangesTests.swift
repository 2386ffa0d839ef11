import GatewayModels
import Testing
import GatewaySupport

@Suite struct AddressRangesTests {
    @Test func matchesPrefixes() throws {
        let ranges = try #require(AddressRanges(parsing: "10.0.0.0/8, 192.0.2.1,2001:db8:abcd::/48"))
        #expect(ranges.contains(IPAddress("10.255.0.1")!))
        #expect(!ranges.contains(IPAddress("11.0.0.1")!))
        #expect(ranges.contains(IPAddress("192.0.2.1")!))
        #expect(!ranges.contains(IPAddress("192.0.2.2")!))
        #expect(ranges.contains(IPAddress("2001:db8:abcd:12::1")!))
        #expect(!ranges.contains(IPAddress("2001:db8:abce::1")!))
        // An IPv4 range never matches an IPv6 address whose low bits look alike.
        #expect(!ranges.contains(IPAddress("::a00:1")!))
    }

    @Test func zeroPrefixMatchesEveryAddressOfItsFamily() throws {
        let v4 = try #require(AddressRanges(parsing: "0.0.0.0/0"))
        #expect(v4.contains(IPAddress("203.0.113.5")!))
        #expect(!v4.contains(IPAddress("2001:db8::1")!))
        let v6 = try #require(AddressRanges(parsing: "::/0"))
        #expect(v6.contains(IPAddress("2001:db8::1")!))
    }

    @Test(arguments: ["10.0.0.0/33", "10.0.0.1/8", "2001:db8::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "host.example", "10.0.0.0/+8"])
    func refusesMalformedLists(text: String) {
        #expect(AddressRanges(parsing: text) == nil)
    }

    @Test func emptyListTrustsNobody() throws {
        let ranges = try #require(AddressRanges(parsing: " , "))
        #expect(ranges.isEmpty)
        #expect(!ranges.contains(IPAddress("127.0.0.1")!))
    }
}
