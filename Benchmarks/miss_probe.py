#!/usr/bin/env python3
"""Benchmarks/outage-misses.sh's probe: one detail miss at a time through the gateway and
through nginx in turn, so both see the same moments (the machine's, the workload's).

    miss_probe.py GATEWAY_URL NGINX_URL FIRST_ID COUNT

For each id from FIRST_ID on (products no one else reads, so each read is a miss on both),
reads the detail through both servers, in a seeded random order, with a short exponential
pause before each (mean PAUSE seconds, 0.02; 0: none), each server on its own keep-alive connection.
Prints one JSON object: per server the p10/p50/p90 in ms and the count, and the median of the
paired differences (gateway minus nginx, the same id).
"""

import http.client
import json
import os
import random
import sys
import time
import urllib.parse

PAUSE = float(os.environ.get("PAUSE", "0.02"))


def percentile(ordered, share):
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main():
    gateway, nginx, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    servers = [("gateway", gateway, "/v1/products/{}"), ("nginx", nginx, "/item/{}")]
    connections = {}
    for name, base, _ in servers:
        parsed = urllib.parse.urlsplit(base)
        connections[name] = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=15)
    latencies = {name: [] for name, _, _ in servers}
    rng = random.Random(29)
    for product in range(first, first + count):
        order = servers[:]
        rng.shuffle(order)
        for name, _, path in order:
            if PAUSE > 0:
                time.sleep(rng.expovariate(1.0 / PAUSE))
            connection = connections[name]
            began = time.monotonic()
            connection.request("GET", path.format(product), headers={"Accept-Encoding": "gzip"})
            answer = connection.getresponse()
            answer.read()
            if answer.status != 200:
                sys.exit(f"{name}: {path.format(product)} answered {answer.status}")
            latencies[name].append((time.monotonic() - began) * 1000)
    result = {}
    for name, values in latencies.items():
        ordered = sorted(values)
        result[name] = {"count": len(ordered), **{f"p{p}_ms": round(percentile(ordered, p / 100), 2) for p in (10, 50, 90)}}
    differences = sorted(g - n for g, n in zip(latencies["gateway"], latencies["nginx"]))
    result["paired_median_ms"] = round(percentile(differences, 0.5), 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
