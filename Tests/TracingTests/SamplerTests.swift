import Testing

@testable import Tracing

@Suite struct SamplerTests {
    @Test func theVariablesNamesGiveTheirSamplers() throws {
        #expect(try Sampler(name: "always_on", argument: nil) == Sampler(root: .alwaysOn, parentBased: false))
        #expect(try Sampler(name: "always_off", argument: "0.5") == Sampler(root: .alwaysOff, parentBased: false))
        #expect(try Sampler(name: "traceidratio", argument: "0.25") == Sampler(root: .ratio(0.25), parentBased: false))
        #expect(try Sampler(name: "traceidratio", argument: nil) == Sampler(root: .ratio(1), parentBased: false))
        #expect(try Sampler(name: "parentbased_always_on", argument: nil) == .default)
        #expect(try Sampler(name: "parentbased_always_off", argument: nil) == Sampler(root: .alwaysOff, parentBased: true))
        #expect(try Sampler(name: "parentbased_traceidratio", argument: "0.01") == Sampler(root: .ratio(0.01), parentBased: true))
    }

    @Test func unknownSamplersAndBadRatiosAreRefused() {
        #expect(throws: TracingConfigurationError.self) { try Sampler(name: "jaeger_remote", argument: nil) }
        #expect(throws: TracingConfigurationError.self) { try Sampler(name: "traceidratio", argument: "1.5") }
        #expect(throws: TracingConfigurationError.self) { try Sampler(name: "traceidratio", argument: "-0.1") }
        #expect(throws: TracingConfigurationError.self) { try Sampler(name: "traceidratio", argument: "half") }
    }

    @Test func parentBasedFollowsTheClientsFlag() {
        let sampler = Sampler(root: .alwaysOff, parentBased: true)
        #expect(sampler.shouldSample(parentSampled: true, traceIDLow: 0))
        #expect(sampler.shouldSample(parentSampled: false, traceIDLow: 0) == false)
        #expect(sampler.shouldSample(parentSampled: nil, traceIDLow: 0) == false)
        let onRoot = Sampler.default
        #expect(onRoot.shouldSample(parentSampled: nil, traceIDLow: 0))
        #expect(onRoot.shouldSample(parentSampled: false, traceIDLow: 0) == false)
    }

    @Test func aRatioComparesTheTraceIdsLast56Bits() {
        let quarter = Sampler(root: .ratio(0.25), parentBased: false)
        // The threshold is 2^54; the top byte of the low half is not looked at.
        #expect(quarter.shouldSample(parentSampled: nil, traceIDLow: (1 << 54) - 1))
        #expect(quarter.shouldSample(parentSampled: nil, traceIDLow: 1 << 54) == false)
        #expect(quarter.shouldSample(parentSampled: nil, traceIDLow: 0xFF00_0000_0000_0000))
        // Not parent-based: the ratio applies even under a sampled parent.
        #expect(quarter.shouldSample(parentSampled: true, traceIDLow: 1 << 55) == false)
        #expect(Sampler(root: .ratio(0), parentBased: false).shouldSample(parentSampled: nil, traceIDLow: 0) == false)
        #expect(Sampler(root: .ratio(1), parentBased: false).shouldSample(parentSampled: nil, traceIDLow: .max))
    }

    @Test func aRatioSamplesAboutItsShareOfScrambledIds() {
        let tenth = Sampler(root: .ratio(0.1), parentBased: false)
        var sampled = 0
        for count in 1...100_000 where tenth.shouldSample(parentSampled: nil, traceIDLow: scramble(UInt64(count))) { sampled += 1 }
        #expect((9_000...11_000).contains(sampled))
    }

    private func scramble(_ value: UInt64) -> UInt64 {
        var z = value &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
