@testable import DemoOrigin
import Testing

@Suite struct DemoFaultsTests {
    @Test func writesAndAppliesJSON() throws {
        #expect(String(decoding: DemoFaults().json, as: UTF8.self) == #"{"latencyMs":0,"errorRate":0,"dropRate":0,"lostAnswerRate":0,"down":false}"#)
        let applied = try DemoFaults(latencyMs: 5).applying(json: Array(#"{"errorRate":0.1,"down":true}"#.utf8))
        #expect(applied == DemoFaults(latencyMs: 5, errorRate: 0.1, down: true))
        #expect(String(decoding: applied.json, as: UTF8.self) == #"{"latencyMs":5,"errorRate":0.1,"dropRate":0,"lostAnswerRate":0,"down":true}"#)
    }

    @Test func refusesUnknownMembersAndValuesOutOfRange() {
        let cases: [(String, String)] = [
            (#"{"latency":5}"#, #"Unknown member "latency"; known: latencyMs, errorRate, dropRate, lostAnswerRate, down."#),
            (#"{"errorRate":1.5}"#, "errorRate must be 0 to 1."),
            (#"{"dropRate":-0.1}"#, "dropRate must be 0 to 1."),
            (#"{"lostAnswerRate":2}"#, "lostAnswerRate must be 0 to 1."),
            (#"{"errorRate":0.6,"dropRate":0.5}"#, "errorRate + dropRate + lostAnswerRate must not exceed 1."),
            (#"{"errorRate":0.5,"lostAnswerRate":0.6}"#, "errorRate + dropRate + lostAnswerRate must not exceed 1."),
            (#"{"latencyMs":600001}"#, "latencyMs must be 0 to 600000."),
            (#"{"latencyMs":1.5}"#, "$.latencyMs: expected a 64-bit integer"),
            (#"{"down":"yes"}"#, "$.down: expected a boolean"),
            ("[1]", "The body must be a JSON object."),
            ("", "The body must be a JSON object."),
        ]
        for (body, message) in cases {
            #expect(throws: DemoFaultsError(message), "\(body)") { try DemoFaults().applying(json: Array(body.utf8)) }
        }
    }

    @Test func sameSeedSameFates() {
        let faults = DemoFaults(errorRate: 0.25, dropRate: 0.25, lostAnswerRate: 0.25)
        let first = FaultInjector(faults: faults, seed: 42)
        let second = FaultInjector(faults: faults, seed: 42)
        let fates = (0..<1000).map { _ in first.plan().fate }
        #expect(fates == (0..<1000).map { _ in second.plan().fate })
        #expect(fates != (0..<1000).map { _ in FaultInjector(faults: faults, seed: 43).plan().fate })
        // Near the configured shares (binomial, n = 1000: well within 5 standard deviations).
        #expect((180...320).contains(fates.filter { $0 == .error }.count))
        #expect((180...320).contains(fates.filter { $0 == .drop }.count))
        #expect((180...320).contains(fates.filter { $0 == .lostAnswer }.count))
        first.reset(faults: faults, seed: 42)
        #expect((0..<1000).map { _ in first.plan().fate } == fates)
    }

    @Test func downDropsEverythingAndNoRatesAnswerEverything() {
        let injector = FaultInjector(faults: DemoFaults(errorRate: 0.5, down: true), seed: 1)
        #expect((0..<50).allSatisfy { _ in injector.plan().fate == .drop })
        injector.faults = DemoFaults()
        #expect((0..<50).allSatisfy { _ in injector.plan().fate == .answer })
        injector.faults = DemoFaults(errorRate: 1)
        #expect((0..<50).allSatisfy { _ in injector.plan().fate == .error })
    }
}
