import GatewayModels
import Testing
import GatewaySupport

@Suite struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func keepsAValidTraceparentAndItsState() {
        let context = TraceContext.from(traceparent: Self.valid, tracestate: "rojo=00f067aa0ba902b7")
        #expect(context == TraceContext(traceID: "4bf92f3577b34da6a3ce929d0e0e4736", parentID: "00f067aa0ba902b7", flags: "01", state: "rojo=00f067aa0ba902b7"))
        #expect(context.traceparent(spanID: "b7ad6b7169203331") == "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01")
    }

    @Test(arguments: [
        "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
    ])
    func replacesAnInvalidOneWithANewTrace(text: String) {
        let context = TraceContext.from(traceparent: text, tracestate: "rojo=1")
        #expect(context.parentID == nil)
        #expect(context.state == nil)
        #expect(context.flags == "00")
        #expect(context.traceID.count == 32 && context.traceID.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(context.traceID != "4bf92f3577b34da6a3ce929d0e0e4736")
    }

    @Test func aLaterVersionMayCarryMoreFields() {
        let context = TraceContext.from(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds", tracestate: nil)
        #expect(context.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(context.traceparent(spanID: "1111111111111111").hasPrefix("00-"))
    }

    @Test func dropsAStateItCannotPassOn() {
        #expect(TraceContext.from(traceparent: Self.valid, tracestate: String(repeating: "a", count: 513)).state == nil)
        #expect(TraceContext.from(traceparent: Self.valid, tracestate: (0..<33).map { "k\($0)=v" }.joined(separator: ",")).state == nil)
        #expect(TraceContext.from(traceparent: Self.valid, tracestate: "k=v\u{7}").state == nil)
    }

    /// Ids are kept as numbers (a request makes no text for its trace); the text is made
    /// from them when something prints it.
    @Test func keepsItsIDsAsNumbers() {
        let context = TraceContext.from(traceparent: Self.valid, tracestate: nil)
        #expect(context.traceIDHigh == 0x4bf9_2f35_77b3_4da6)
        #expect(context.traceIDLow == 0xa3ce_929d_0e0e_4736)
        #expect(context.parentSpan == 0x00f0_67aa_0ba9_02b7)
        #expect(context.traceFlags == 1)
        #expect(context.isRecorded == false)
        #expect(context.spanID == nil)
        let other = TraceContext.from(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03", tracestate: nil)
        #expect(other.flags == "03")
        #expect(other.isSampled)
        let recorded = context.deciding(sampled: true)
        #expect(recorded.isRecorded)
        #expect(recorded.flags == "01")
        #expect(recorded.spanID.map { $0.count == 16 && $0 == HexIDs.hex16(recorded.serverSpan) } == true)
        #expect(recorded.outgoingTraceparent == "00-4bf92f3577b34da6a3ce929d0e0e4736-\(recorded.spanID!)-01")
        let unrecorded = other.deciding(sampled: false)
        #expect(unrecorded.flags == "00")
        #expect(unrecorded.spanID == nil)
        #expect(unrecorded.parentID == "00f067aa0ba902b7")
    }

    @Test func newIDsAreHexAndDiffer() {
        let spans = Set((0..<100).map { _ in TraceContext.newSpanID() })
        #expect(spans.count == 100)
        #expect(spans.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
    }
}
