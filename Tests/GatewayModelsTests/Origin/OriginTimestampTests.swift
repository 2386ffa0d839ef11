import Foundation
import GatewayModels
import Testing
import TestSupport

@Suite struct OriginTimestampTests {
    @Test func epochSecondsAreFlooredToMillisecondsExactly() {
        #expect(OriginTimestamp.millis(epochSeconds: Decimal(string: "1611523563.7237701")!) == 1_611_523_563_723)
        #expect(OriginTimestamp.millis(epochSeconds: Decimal(string: "1611523563.7299999999")!) == 1_611_523_563_729)
        #expect(OriginTimestamp.millis(epochSeconds: Decimal(string: "1611523563")!) == 1_611_523_563_000)
        #expect(OriginTimestamp.millis(epochSeconds: Decimal(string: "-0.0005")!) == -1)
        #expect(OriginTimestamp.millis(epochSeconds: Decimal(string: "253402300800")!) == nil)
        #expect(OriginTimestamp.millis(epochSeconds: Decimal(string: "1e30")!) == nil)
    }

    @Test func zonelessDatesAreSeoulLocalTime() {
        #expect(OriginTimestamp.millis(localDateTime: "2022-05-14T00:00:00.00") == 1_652_454_000_000)
        #expect(OriginTimestamp.millis(localDateTime: "2022-11-04T00:00:00") == 1_667_487_600_000)
        #expect(OriginTimestamp.millis(localDateTime: "2021-12-29 00:00:00.000") == 1_640_703_600_000)
        #expect(OriginTimestamp.millis(localDateTime: "2022-11-04T09:30:15.1234") == 1_667_521_815_123)
    }

    @Test func explicitZonesWin() {
        #expect(OriginTimestamp.millis(localDateTime: "2022-11-04T00:00:00Z") == 1_667_520_000_000)
        #expect(OriginTimestamp.millis(localDateTime: "2022-11-04T00:00:00+09:00") == 1_667_487_600_000)
        #expect(OriginTimestamp.millis(localDateTime: "2022-11-04T00:00:00-01:30") == 1_667_525_400_000)
    }

    @Test(arguments: ["", "2022-11-04", "2022-13-01T00:00:00", "2022-02-29T00:00:00", "2022-11-04T24:00:00", "2022-11-04T00:00:00.", "2022-11-04T00:00:00+9", "yesterday"])
    func malformedDatesAreRejected(text: String) {
        #expect(OriginTimestamp.millis(localDateTime: text) == nil)
    }

    @Test func rfc3339HasMillisecondsAndZ() {
        #expect(OriginTimestamp.rfc3339(millis: 1_611_523_563_723) == "2021-01-24T21:26:03Z")
        #expect(OriginTimestamp.rfc3339(millis: 0) == "1970-01-01T00:00:00Z")
        #expect(OriginTimestamp.rfc3339(millis: -1) == "1969-12-31T23:59:59Z")
        #expect(OriginTimestamp.rfc3339(millis: 951_782_400_000) == "2000-02-29T00:00:00Z")
        #expect(OriginTimestamp.rfc3339(millis: 253_402_300_799_999) == "9999-12-31T23:59:59Z")
        #expect(OriginTimestamp.rfc3339(millis: -62_167_219_200_000) == "0000-01-01T00:00:00Z")
        #expect(OriginTimestamp.rfc3339(millis: .max) == "9999-12-31T23:59:59Z")
    }

    @Test func rfc3339IsWhatFoundationsDefaultFormatterWritesAndReads() {
        var generator = SeededGenerator(seed: 42)
        // Foundation's formatter with its default options: what apps decode with.
        let formatter = ISO8601DateFormatter()
        for _ in 0..<500 {
            let millis = Int64.random(in: 0...4_102_444_800_000, using: &generator)
            let text = OriginTimestamp.rfc3339(millis: millis)
            #expect(text == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(millis / 1000))))
            #expect(formatter.date(from: text) == Date(timeIntervalSince1970: TimeInterval(millis / 1000)))
        }
    }
}
