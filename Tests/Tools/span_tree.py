#!/usr/bin/env python3
"""Prints the spans an otlp_receiver.py received as trees, one per trace.

    span_tree.py [--url http://127.0.0.1:4318/spans] [--trace TRACE_ID] [--linked] [--collapse]

Each line: kind, name, duration, and what says most about it (url.full, the route, the cache
status, the Redis command, links). With --trace, that trace only; with --linked, also the
traces whose root links to it (background work it caused). With --collapse, siblings of one
kind and name are one line: how many, and their shortest and longest durations.
"""
import argparse
import json
import urllib.request

KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}
SHOWN = ["url.full", "url.path", "http.response.status_code", "open_market.cache.status", "db.operation.name",
         "open_market.placeholders.asked", "open_market.image.format", "open_market.image.width", "open_market.prefetch.kind",
         "open_market.refresh.kind", "open_market.auth.key_set.reason", "error.type"]


def describe(span):
    attributes = span.get("attributes", {})
    parts = [f"{key.split('.')[-1]}={attributes[key]}" for key in SHOWN if key in attributes]
    for link in span.get("links", []):
        parts.append(f"link→{link['traceId'][:8]}…/{link['spanId'][:8]}…")
    duration = (span["end"] - span["start"]) / 1e6
    return f"{KINDS.get(span['kind'], span['kind']):8} {span['name']}  {duration:.2f} ms  {' '.join(parts)}"


def print_tree(spans, trace_id, out, collapse=False):
    in_trace = [s for s in spans if s["traceId"] == trace_id]
    ids = {s["spanId"] for s in in_trace}
    children = {}
    for span in sorted(in_trace, key=lambda s: s["start"]):
        parent = span["parentSpanId"] if span["parentSpanId"] in ids else None
        children.setdefault(parent, []).append(span)

    def walk(span, depth):
        out.append("  " * depth + describe(span))
        kids = children.get(span["spanId"], [])
        if not collapse:
            for child in kids:
                walk(child, depth + 1)
            return
        groups = {}
        for child in kids:
            groups.setdefault((child["kind"], child["name"]), []).append(child)
        for group in groups.values():
            if len(group) == 1 or any(children.get(c["spanId"]) for c in group):
                for child in group:
                    walk(child, depth + 1)
                continue
            durations = [(c["end"] - c["start"]) / 1e6 for c in group]
            first = group[0]
            out.append("  " * (depth + 1) + f"{KINDS.get(first['kind'], first['kind']):8} {first['name']}  × {len(group)}, "
                       f"{min(durations):.2f}–{max(durations):.2f} ms")

    out.append(f"trace {trace_id}")
    for root in children.get(None, []):
        walk(root, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:4318/spans")
    parser.add_argument("--trace")
    parser.add_argument("--linked", action="store_true")
    parser.add_argument("--collapse", action="store_true")
    arguments = parser.parse_args()
    with urllib.request.urlopen(arguments.url) as answer:
        spans = json.load(answer)
    traces = sorted({s["traceId"] for s in spans}, key=lambda t: min(s["start"] for s in spans if s["traceId"] == t))
    if arguments.trace:
        wanted = [arguments.trace]
        if arguments.linked:
            wanted += [t for t in traces if t != arguments.trace and any(
                link["traceId"] == arguments.trace for s in spans if s["traceId"] == t for link in s.get("links", []))]
        traces = [t for t in traces if t in wanted]
    out = []
    for trace_id in traces:
        print_tree(spans, trace_id, out, collapse=arguments.collapse)
    print("\n".join(out))


if __name__ == "__main__":
    main()
