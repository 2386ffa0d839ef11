import Testing

@testable import Tracing

@Suite struct OTLPEncodingTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test func varintsTakeSevenBitsAByteLowFirst() {
        var writer = ProtobufWriter()
        writer.varint(1)
        writer.varint(300)
        writer.varint(UInt64.max)
        #expect(hex(writer.bytes) == "01" + "ac02" + "ffffffffffffffffff01")
    }

    @Test func fixedWidthNumbersAreLittleEndianAndDefaultsAreLeftOut() {
        var writer = ProtobufWriter()
        writer.fixed64Field(7, 0x0102_0304_0506_0708)
        writer.fixed32Field(16, 0x0301)
        writer.varintField(6, 0)
        writer.stringField(5, "")
        #expect(hex(writer.bytes) == "39" + "0807060504030201" + "8501" + "01030000")
    }

    @Test func anAttributeIsAKeyAndAnAnyValue() {
        var writer = ProtobufWriter()
        OTLPProtobuf.write(SpanAttribute("a", "b"), to: &writer)
        OTLPProtobuf.write(SpanAttribute("n", 200), to: &writer)
        OTLPProtobuf.write(SpanAttribute("f", false), to: &writer)
        OTLPProtobuf.write(SpanAttribute("e", ""), to: &writer)
        #expect(hex(writer.bytes) == "0a0161" + "1203" + "0a0162" + "0a016e" + "1203" + "18c801" + "0a0166" + "1202" + "1000" + "0a0165" + "1202" + "0a00")
    }

    @Test func aNegativeIntegerIsTenBytesOfTwosComplement() {
        var writer = ProtobufWriter()
        OTLPProtobuf.write(SpanAttribute("n", .int(-1)), to: &writer)
        #expect(hex(writer.bytes) == "0a016e" + "120b" + "18ffffffffffffffffff01")
    }

    @Test func aLongMessageGetsATwoByteLength() {
        var writer = ProtobufWriter()
        writer.messageField(1) { $0.stringField(1, String(repeating: "x", count: 200)) }
        // 200 bytes of text after a tag and a 2-byte length: 203 = 0xcb 0x01.
        #expect(hex(Array(writer.bytes.prefix(6))) == "0acb010ac801")
        #expect(writer.bytes.count == 3 + 203)
    }

    /// A message's length is written in its fewest bytes whatever was kept for it: the
    /// content moves back or forth, and the bytes are those of a writer that kept one.
    @Test(arguments: [(1, 5), (1, 200), (1, 20_000), (2, 5), (2, 200), (2, 20_000), (3, 5), (3, 200), (3, 20_000)])
    func aMessagesLengthTakesItsFewestBytesWhateverWasKept(kept: Int, contentBytes: Int) {
        let content = String(repeating: "y", count: contentBytes)
        var writer = ProtobufWriter()
        writer.varint(7)
        writer.messageField(2, lengthBytes: kept) { $0.stringField(1, content) }
        writer.varint(9)
        let inner = [0x0A] + varint(contentBytes) + Array(content.utf8)
        #expect(writer.bytes == [7, 0x12] + varint(inner.count) + inner + [9])
    }

    /// The varint of `value`, written plainly here (the oracle for the writer's).
    private func varint(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.append(UInt8(rest & 0x7F) | (rest >= 0x80 ? 0x80 : 0))
            rest >>= 7
        } while rest > 0
        return bytes
    }

    @Test func idsAreWrittenAsTheBytesTheirHexSpells() {
        var writer = ProtobufWriter()
        writer.hexBytesField(2, "00f067aa0ba902b7")
        #expect(hex(writer.bytes) == "1208" + "00f067aa0ba902b7")
    }

    @Test func aSpanHasItsFieldsInNumberOrder() {
        let span = SpanRecord(
            traceID: "4bf92f3577b34da6a3ce929d0e0e4736", spanID: "00f067aa0ba902b7", parentSpanID: "b7ad6b7169203331", parentIsRemote: true,
            traceState: "k=v", name: "GET /x", kind: .server, startNanoseconds: 1, endNanoseconds: 2, status: .error(""),
            attributes: [SpanAttribute("a", "b")])
        var writer = ProtobufWriter()
        OTLPProtobuf.write(span, to: &writer)
        let expected =
            "0a10" + "4bf92f3577b34da6a3ce929d0e0e4736" + "1208" + "00f067aa0ba902b7" + "1a03" + "6b3d76" + "2208" + "b7ad6b7169203331"
            + "2a06" + "474554202f78" + "3002" + "39" + "0100000000000000" + "41" + "0200000000000000" + "4a08" + "0a01611203" + "0a0162"
            + "7a02" + "1802" + "8501" + "01030000"
        #expect(hex(writer.bytes) == expected)
    }

    @Test func theJSONFormHasHexIdsAndStringNumbers() {
        let span = SpanRecord(
            traceID: "4bf92f3577b34da6a3ce929d0e0e4736", spanID: "00f067aa0ba902b7", parentSpanID: nil, name: "GET", kind: .server,
            startNanoseconds: 1_700_000_000_000_000_000, endNanoseconds: 1_700_000_000_000_000_001, attributes: [SpanAttribute("n", 5)])
        let json = String(decoding: OTLPJSON.exportRequest([span], resource: TraceResource(attributes: [SpanAttribute("service.name", "s")])), as: UTF8.self)
        #expect(
            json
                == #"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]},"scopeSpans":[{"scope":{"name":"open-market-gateway"},"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7","flags":257,"name":"GET","kind":2,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000000000001","attributes":[{"key":"n","value":{"intValue":"5"}}]}]}]}]}"#
        )
    }

    @Test func theResourceNamesTheServiceAndKeepsTheOperatorsAttributes() {
        let resource = TraceResource.gateway(
            serviceName: nil, version: "1.2", instanceID: "i-1", hostName: "h",
            extra: [("deployment.environment.name", "prod"), ("service.name", "shop-edge"), ("host.name", "pod-7")])
        #expect(
            resource.attributes == [
                SpanAttribute("service.name", "shop-edge"), SpanAttribute("deployment.environment.name", "prod"), SpanAttribute("host.name", "pod-7"),
                SpanAttribute("service.version", "1.2"), SpanAttribute("service.instance.id", "i-1"),
            ])
        let named = TraceResource.gateway(serviceName: "edge", version: "1.2", instanceID: "i-1", hostName: "h", extra: [("service.name", "x")])
        #expect(named.attributes.first == SpanAttribute("service.name", "edge"))
        #expect(named.attributes.count == 4)
    }
}
