/// An OTLP `ExportTraceServiceRequest` (opentelemetry-proto, `collector/trace/v1`) in the
/// protobuf encoding, for `POST /v1/traces` with `Content-Type: application/x-protobuf`:
/// one resource, one instrumentation scope, the spans in the order given.
public enum OTLPProtobuf {
    public static func exportRequest(_ spans: [SpanRecord], resource: TraceResource) -> [UInt8] {
        exportRequest(spanCount: spans.count, resource: resource) { writer in
            for span in spans { writer.messageField(2, lengthBytes: 2) { write(span, to: &$0) } }
        }
    }

    /// The request for spans as the loops queued them: a server span is written from its
    /// fields (``write(_:to:)-(HTTPServerSpan.Finished,_)``), with no ``SpanRecord`` made;
    /// the bytes are those of its record.
    public static func exportRequest(_ spans: some Collection<QueuedSpan>, resource: TraceResource) -> [UInt8] {
        exportRequest(spanCount: spans.count, resource: resource) { writer in
            for span in spans {
                switch span {
                case .record(let record): writer.messageField(2, lengthBytes: 2) { write(record, to: &$0) }
                case .server(let finished): writer.messageField(2, lengthBytes: 2) { write(finished, to: &$0) }
                }
            }
        }
    }

    /// The request around the spans `writeSpans` writes as `ScopeSpans.spans` (field 2).
    private static func exportRequest(spanCount: Int, resource: TraceResource, writeSpans: (inout ProtobufWriter) -> Void) -> [UInt8] {
        var writer = ProtobufWriter(capacity: 256 + spanCount * 512)
        // ExportTraceServiceRequest.resource_spans = 1
        writer.messageField(1, lengthBytes: 3) { resourceSpans in
            // ResourceSpans.resource = 1 { Resource.attributes = 1 }
            resourceSpans.messageField(1) { resourceMessage in
                for attribute in resource.attributes { resourceMessage.messageField(1) { write(attribute, to: &$0) } }
            }
            // ResourceSpans.scope_spans = 2
            resourceSpans.messageField(2, lengthBytes: 3) { scopeSpans in
                // ScopeSpans.scope = 1 { name = 1, version = 2 }
                scopeSpans.messageField(1) { scope in
                    scope.stringField(1, resource.scopeName)
                    scope.stringField(2, resource.scopeVersion)
                }
                // ScopeSpans.spans = 2
                writeSpans(&scopeSpans)
            }
        }
        return writer.bytes
    }

    /// `Span`: trace_id 1, span_id 2, trace_state 3, parent_span_id 4, name 5, kind 6,
    /// start 7, end 8, attributes 9, links 13, status 15, flags 16.
    static func write(_ span: SpanRecord, to writer: inout ProtobufWriter) {
        writer.hexBytesField(1, span.traceID)
        writer.hexBytesField(2, span.spanID)
        writer.stringField(3, span.traceState ?? "")
        writer.hexBytesField(4, span.parentSpanID ?? "")
        writer.stringField(5, span.name)
        writer.varintField(6, UInt64(span.kind.rawValue))
        writer.fixed64Field(7, span.startNanoseconds)
        writer.fixed64Field(8, span.endNanoseconds)
        for attribute in span.attributes { writer.messageField(9) { write(attribute, to: &$0) } }
        for link in span.links {
            // Span.Link: trace_id 1, span_id 2, trace_state 3, flags 6.
            writer.messageField(13) { message in
                message.hexBytesField(1, link.traceID)
                message.hexBytesField(2, link.spanID)
                message.stringField(3, link.traceState ?? "")
                message.fixed32Field(6, SpanFlags.sampled | SpanFlags.hasIsRemote)
            }
        }
        if case .error(let description) = span.status {
            // Status: message 2, code 3 (STATUS_CODE_ERROR = 2).
            writer.messageField(15) { status in
                status.stringField(2, description)
                status.varintField(3, 2)
            }
        }
        writer.fixed32Field(16, span.flags)
    }

    /// A server span, from the fields its loop queued: what ``write(_:to:)-(SpanRecord,_)``
    /// writes for its record, byte for byte (the tests compare them), without the record.
    static func write(_ finished: HTTPServerSpan.Finished, to writer: inout ProtobufWriter) {
        let trace = finished.trace
        let fields = finished.fields
        writer.idField(1, trace.traceIDHigh, trace.traceIDLow)
        writer.idField(2, trace.serverSpan)
        writer.stringField(3, trace.state ?? "")
        if trace.parentSpan != 0 { writer.idField(4, trace.parentSpan) }
        let (method, route) = fields.nameParts
        if let route {
            writer.tag(5, .lengthDelimited)
            writer.varint(UInt64(method.utf8.count + 1 + route.utf8.count))
            writer.append(method)
            writer.append(" ")
            writer.append(route)
        } else {
            writer.stringField(5, method)
        }
        writer.varintField(6, UInt64(SpanRecord.Kind.server.rawValue))
        writer.fixed64Field(7, SpanRecord.start(endingAt: finished.endNanoseconds, after: finished.elapsed))
        writer.fixed64Field(8, finished.endNanoseconds)
        fields.forEachAttribute(recordsEndUser: finished.recordsEndUser) { key, value in writer.attribute(9, key: key, value: value) }
        if fields.isError {
            // Status: code 3 = STATUS_CODE_ERROR, no message.
            writer.messageField(15) { $0.varintField(3, 2) }
        }
        writer.fixed32Field(16, SpanFlags.ofSampledSpan(parentIsRemote: trace.parentSpan != 0))
    }

    /// `KeyValue`: key 1, value 2 (`AnyValue`: string 1, bool 2, int 3).
    static func write(_ attribute: SpanAttribute, to writer: inout ProtobufWriter) {
        writer.stringField(1, attribute.key)
        writer.messageField(2) { value in
            switch attribute.value {
            case .string(let text):
                // Written even when empty: an empty string is still a string value.
                value.tag(1, .lengthDelimited)
                value.varint(UInt64(text.utf8.count))
                value.appendRaw(text.utf8)
            case .bool(let flag):
                value.tag(2, .varint)
                value.varint(flag ? 1 : 0)
            case .int(let number):
                value.tag(3, .varint)
                value.varint(UInt64(bitPattern: number))
            }
        }
    }
}

/// The bits of a span's `flags` (OTLP `SpanFlags`): the W3C trace flags in the low byte, and
/// whether the parent (or a link's span) is remote.
public enum SpanFlags {
    public static let sampled: UInt32 = 0x01
    public static let hasIsRemote: UInt32 = 0x100
    public static let isRemote: UInt32 = 0x200

    /// An exported span's (every one is sampled), with whether its parent came from another
    /// process.
    static func ofSampledSpan(parentIsRemote: Bool) -> UInt32 {
        sampled | hasIsRemote | (parentIsRemote ? isRemote : 0)
    }
}

extension SpanRecord {
    /// Sampled (every exported span is), with whether its parent came from another process.
    var flags: UInt32 { SpanFlags.ofSampledSpan(parentIsRemote: parentIsRemote) }
}
