import GatewayModels
import Testing
import GatewaySupport

@Suite struct WeightedListTests {
    /// Each element's value and weight, as `forEach` reports them.
    private func elements(_ header: String) -> [(String, Int?)] {
        var seen: [(String, Int?)] = []
        WeightedList.forEach(header) { value, weight in
            seen.append((String(decoding: value, as: UTF8.self), weight))
            return true
        }
        return seen
    }

    @Test func readsValuesAndWeights() {
        let seen = elements(" gzip ;q=0.5 ,, br,\tdeflate; level=9 ;Q=1.000,x;q= 0.25 ")
        #expect(seen.map(\.0) == ["gzip", "br", "deflate", "x"])
        #expect(seen.map(\.1) == [500, 1000, 1000, 250])
    }

    @Test(arguments: [
        ("0", 0), ("0.", 0), ("0.001", 1), ("0.9", 900), ("0.123", 123), ("1", 1000), ("1.", 1000), ("1.000", 1000),
    ])
    func acceptsRFC9110QValues(text: String, thousandths: Int) {
        #expect(elements("a;q=" + text).map(\.1) == [thousandths])
    }

    @Test(arguments: ["1.5", "1.001", "0.1234", "2", ".5", "-0", "0 5", "abc", "", "0x1", "1e0"])
    func refusesOtherQValues(text: String) {
        #expect(elements("a;q=" + text).first?.1 == .some(nil))
    }

    @Test func readsAtMostMaxElementsAndSaysSo() {
        let header = (1...40).map { "e\($0)" }.joined(separator: ", ")
        let seen = elements(header)
        #expect(seen.count == WeightedList.maxElements)
        #expect(seen.last?.0 == "e32")
        #expect(WeightedList.forEach(header) { _, _ in true } == false)
        let exactly = (1...32).map { "e\($0)" }.joined(separator: ", ") + ", ,"
        #expect(WeightedList.forEach(exactly) { _, _ in true } == true)
    }

    @Test func reportsOverlongElementsUnreadAndCountsThem() {
        let long = String(repeating: "a", count: WeightedList.maxElementBytes + 1)
        let fits = String(repeating: "b", count: WeightedList.maxElementBytes)
        let seen = elements("\(long), \(fits), c")
        #expect(seen.map(\.0) == ["", fits, "c"])
        #expect(seen.map(\.1) == [nil, 1000, 1000])
        let header = Array(repeating: long, count: WeightedList.maxElements).joined(separator: ",") + ",gzip"
        #expect(elements(header).map(\.0) == Array(repeating: "", count: WeightedList.maxElements))
    }

    @Test func stopsWhenAsked() {
        var calls = 0
        WeightedList.forEach("a, b, c") { _, _ in
            calls += 1
            return calls < 2
        }
        #expect(calls == 2)
    }
}
