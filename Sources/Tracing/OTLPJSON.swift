import GatewaySupport

/// The same `ExportTraceServiceRequest` as ``OTLPProtobuf`` in OTLP/JSON
/// (`Content-Type: application/json`, `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json`):
/// protobuf's JSON mapping with lowerCamelCase keys, enums as numbers, 64-bit integers as
/// decimal strings, and trace and span ids as hex (OTLP's one exception to the mapping).
public enum OTLPJSON {
    public static func exportRequest(_ spans: [SpanRecord], resource: TraceResource) -> [UInt8] {
        var json = JSONWriter(capacity: 512 + spans.count * 800)
        json.beginObject()
        json.key("resourceSpans")
        json.beginArray()
        json.beginObject()
        json.key("resource")
        json.beginObject()
        write(resource.attributes, to: &json)
        json.endObject()
        json.key("scopeSpans")
        json.beginArray()
        json.beginObject()
        json.key("scope")
        json.beginObject()
        json.key("name")
        json.string(resource.scopeName)
        if !resource.scopeVersion.isEmpty {
            json.key("version")
            json.string(resource.scopeVersion)
        }
        json.endObject()
        json.key("spans")
        json.beginArray()
        for span in spans { write(span, to: &json) }
        json.endArray()
        json.endObject()
        json.endArray()
        json.endObject()
        json.endArray()
        json.endObject()
        return json.bytes
    }

    static func write(_ span: SpanRecord, to json: inout JSONWriter) {
        json.beginObject()
        writeIdentity(traceID: span.traceID, spanID: span.spanID, traceState: span.traceState, to: &json)
        if let parent = span.parentSpanID {
            json.key("parentSpanId")
            json.string(parent)
        }
        json.key("flags")
        json.integer(Int64(span.flags))
        json.key("name")
        json.string(span.name)
        json.key("kind")
        json.integer(Int64(span.kind.rawValue))
        json.key("startTimeUnixNano")
        json.string(String(span.startNanoseconds))
        json.key("endTimeUnixNano")
        json.string(String(span.endNanoseconds))
        write(span.attributes, to: &json)
        if !span.links.isEmpty {
            json.key("links")
            json.beginArray()
            for link in span.links {
                json.beginObject()
                writeIdentity(traceID: link.traceID, spanID: link.spanID, traceState: link.traceState, to: &json)
                json.key("flags")
                json.integer(Int64(SpanFlags.sampled | SpanFlags.hasIsRemote))
                json.endObject()
            }
            json.endArray()
        }
        if case .error(let description) = span.status {
            json.key("status")
            json.beginObject()
            json.key("message")
            json.string(description)
            json.key("code")
            json.integer(2)
            json.endObject()
        }
        json.endObject()
    }

    /// `traceId`, `spanId` and, when there is one, `traceState`: of a span or of a link.
    static func writeIdentity(traceID: String, spanID: String, traceState: String?, to json: inout JSONWriter) {
        json.key("traceId")
        json.string(traceID)
        json.key("spanId")
        json.string(spanID)
        if let traceState {
            json.key("traceState")
            json.string(traceState)
        }
    }

    static func write(_ attributes: [SpanAttribute], to json: inout JSONWriter) {
        json.key("attributes")
        json.beginArray()
        for attribute in attributes {
            json.beginObject()
            json.key("key")
            json.string(attribute.key)
            json.key("value")
            json.beginObject()
            switch attribute.value {
            case .string(let text):
                json.key("stringValue")
                json.string(text)
            case .bool(let flag):
                json.key("boolValue")
                json.bool(flag)
            case .int(let number):
                json.key("intValue")
                json.string(String(number))
            }
            json.endObject()
            json.endObject()
        }
        json.endArray()
    }
}
