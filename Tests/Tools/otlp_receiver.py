#!/usr/bin/env python3
"""An OTLP/HTTP traces receiver for the gateway's tests, decoding with opentelemetry-proto.

    otlp_receiver.py [--port N]

Prints {"port": N} on its first line once it listens on 127.0.0.1. Then:

  POST /v1/traces    an ExportTraceServiceRequest, protobuf (application/x-protobuf) or
                     OTLP/JSON (application/json), gzipped or not. Decoded with the reference
                     classes; a protobuf body is also encoded again and compared byte for
                     byte (`reencodedEqual`). Answered as the behaviour set by /control says.
  GET /spans         every span received so far, as JSON: ids in hex, attributes as a map,
                     with the request's content type, encoding, headers and the resource.
  GET /requests      every export request: its headers, decode outcome and span count.
  POST /control      {"status": 503, "retryAfter": "1", "delay": 0.5, "times": 2}: the next
                     `times` exports (every one when absent) are answered so, after `delay`
                     seconds; {"status": 200} restores the default.
"""
import argparse
import base64
import gzip
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

lock = threading.Lock()
spans = []
requests = []
behaviour = {"status": 200, "retryAfter": None, "delay": 0.0, "times": None}


def any_value(value):
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "int_value":
        return value.int_value
    if kind == "double_value":
        return value.double_value
    return None


def attributes(pairs):
    return {pair.key: any_value(pair.value) for pair in pairs}


def hex_ids_to_base64(node):
    """OTLP/JSON writes ids in hex; protobuf's JSON mapping wants base64."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
                node[key] = base64.b64encode(bytes.fromhex(value)).decode()
            else:
                hex_ids_to_base64(value)
    elif isinstance(node, list):
        for item in node:
            hex_ids_to_base64(item)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", content_type="application/json", extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with lock:
            data = spans if self.path == "/spans" else requests if self.path == "/requests" else None
            body = json.dumps(data).encode() if data is not None else None
        if body is None:
            return self.reply(404)
        self.reply(200, body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        if self.path == "/control":
            with lock:
                behaviour.update({"status": 200, "retryAfter": None, "delay": 0.0, "times": None})
                behaviour.update(json.loads(raw or b"{}"))
            return self.reply(204)
        if self.path != "/v1/traces":
            return self.reply(404)
        headers = {name.lower(): value for name, value in self.headers.items()}
        record = {"headers": headers, "bytes": len(raw)}
        body = raw
        try:
            if headers.get("content-encoding") == "gzip":
                body = gzip.decompress(raw)
            message = trace_service_pb2.ExportTraceServiceRequest()
            content_type = headers.get("content-type", "")
            if content_type == "application/x-protobuf":
                message.ParseFromString(body)
                record["reencodedEqual"] = message.SerializeToString(deterministic=True) == body
            elif content_type == "application/json":
                document = json.loads(body)
                hex_ids_to_base64(document)
                json_format.ParseDict(document, message)
            else:
                raise ValueError("content type " + content_type)
        except Exception as error:  # the test sees what failed to decode
            record["error"] = repr(error)
            with lock:
                requests.append(record)
            return self.reply(400, json.dumps({"error": repr(error)}).encode())
        with lock:
            answer = dict(behaviour)
            if answer["times"] is not None:
                behaviour["times"] = answer["times"] - 1
                if behaviour["times"] <= 0:
                    behaviour.update({"status": 200, "retryAfter": None, "delay": 0.0, "times": None})
        if answer["delay"]:
            time.sleep(answer["delay"])
        received = []
        for resource_spans in message.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    received.append({
                        "traceId": span.trace_id.hex(), "spanId": span.span_id.hex(), "parentSpanId": span.parent_span_id.hex(),
                        "traceState": span.trace_state, "name": span.name, "kind": span.kind,
                        "start": span.start_time_unix_nano, "end": span.end_time_unix_nano,
                        "attributes": attributes(span.attributes), "flags": span.flags,
                        "status": {"code": span.status.code, "message": span.status.message},
                        "links": [{"traceId": link.trace_id.hex(), "spanId": link.span_id.hex()} for link in span.links],
                        "resource": resource, "scope": {"name": scope_spans.scope.name, "version": scope_spans.scope.version},
                        "contentType": headers.get("content-type"), "encoding": headers.get("content-encoding", "identity"),
                        "answered": answer["status"],
                    })
        record["spans"] = len(received)
        record["answered"] = answer["status"]
        record["reencodedEqual"] = record.get("reencodedEqual")
        with lock:
            requests.append(record)
            if 200 <= answer["status"] < 300:
                spans.extend(received)
        extra = {"Retry-After": str(answer["retryAfter"])} if answer["retryAfter"] is not None else None
        if 200 <= answer["status"] < 300:
            response = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
            return self.reply(answer["status"], response, "application/x-protobuf")
        self.reply(answer["status"], b'{"code":14,"message":"unavailable"}', "application/json", extra)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
