@testable import DemoOrigin
import Foundation
import Testing

@Suite struct SeoulDateTimeTests {
    @Test func v2HasTwoTruncatedFractionDigitsAndV2bNone() {
        // 2021-01-24T21:26:03.7237701Z is 06:26:03 the next morning in Seoul (UTC+9).
        let instant = Decimal(string: "1611523563.7237701")!
        #expect(SeoulDateTime.format(epochSeconds: instant, fractionDigits: 2) == "2021-01-25T06:26:03.72")
        #expect(SeoulDateTime.format(epochSeconds: instant, fractionDigits: 0) == "2021-01-25T06:26:03")
    }

    @Test func midnightInSeoulIsThreePMTheDayBeforeInUTC() {
        // 2022-05-13T15:00:00Z.
        #expect(SeoulDateTime.format(epochSeconds: 1_652_454_000, fractionDigits: 2) == "2022-05-14T00:00:00.00")
        #expect(SeoulDateTime.format(epochSeconds: 1_652_453_999, fractionDigits: 0) == "2022-05-13T23:59:59")
        #expect(SeoulDateTime.format(epochSeconds: Decimal(string: "1652454012.349")!, fractionDigits: 2) == "2022-05-14T00:00:12.34")
    }
}
