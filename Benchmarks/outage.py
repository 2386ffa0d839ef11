#!/usr/bin/env python3
"""A realistic read workload through a cache, with an origin outage in the middle (issue 29).

USERS app users (threads, one keep-alive connection each) for DURATION seconds, each with a
random generator seeded from SEED and its number, so the gateway and nginx get the same
request sequence per user: list sessions (page 1, then each further page with probability
0.5, up to page 100) and product details of Zipf(1.1) popularity over PRODUCTS products,
with exponential think times (mean THINK seconds). From OUTAGE_AT for OUTAGE_FOR seconds the
demo origin answers every request with 500 (`PUT /__admin/faults`).

    outage.py gateway|nginx BASE_URL ORIGIN_URL

Prints one JSON object: client requests, origin requests (the JSON routes only: list pages
and details) overall and during the outage, both per 1,000 client requests, p50/p99 of every
answer and of list pages, the share and p50/p90 of answers that waited for the origin (all,
and details alone), the 5xx answered during the outage to URLs that had been answered 200
before it and any 5xx after it, the origin's image requests (the gateway fetches thumbnails
ahead), and the server's CPU seconds during the run (SERVER_PID: the server's process, all
its threads).
"""

import http.client
import json
import math
import os
import random
import sys
import threading
import time
import urllib.parse

USERS = int(os.environ.get("USERS", "200"))
DURATION = float(os.environ.get("DURATION_S", "70"))
OUTAGE_AT = float(os.environ.get("OUTAGE_AT", "30"))
OUTAGE_FOR = float(os.environ.get("OUTAGE_FOR", "10"))
PRODUCTS = int(os.environ.get("PRODUCTS", "2000"))
THINK = float(os.environ.get("THINK", "0.6"))
SEED = int(os.environ.get("SEED", "29"))
ORIGIN_MS = float(os.environ.get("ORIGIN_MS", "40"))
ZIPF_S = 1.1


def zipf_table(n, s):
    weights = [1.0 / (rank ** s) for rank in range(1, n + 1)]
    total = sum(weights)
    cumulative, running = [], 0.0
    for weight in weights:
        running += weight / total
        cumulative.append(running)
    return cumulative


def pick(cumulative, r):
    low, high = 0, len(cumulative) - 1
    while low < high:
        middle = (low + high) // 2
        if cumulative[middle] < r:
            low = middle + 1
        else:
            high = middle
    return low


def target(mode, kind, number):
    if mode == "gateway":
        return f"/v1/products?page={number}" if kind == "list" else f"/v1/products/{number}"
    return f"/items/{number}" if kind == "list" else f"/item/{number}"


def origin_call(origin, method, path, body=None):
    parsed = urllib.parse.urlsplit(origin)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, body=body, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer.status, data


def json_routes(origin):
    _, data = origin_call(origin, "GET", "/__admin/counts")
    routes = json.loads(data)["routes"]
    return routes.get("GET /items/{page}", 0) + routes.get("GET /item/{id}", 0)


def image_routes(origin):
    _, data = origin_call(origin, "GET", "/__admin/counts")
    return json.loads(data)["routes"].get("GET /images/{file}", 0)


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` so far (0 when unknown)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def user(number, mode, base, start, cumulative, records, lock):
    rng = random.Random(SEED * 100_003 + number)
    parsed = urllib.parse.urlsplit(base)
    connection = None
    plan = []
    done = []
    # The rank order of products is the same for both servers: ids 1…PRODUCTS by popularity.
    while True:
        if not plan:
            if rng.random() < 0.3:
                page = 1
                plan.append(("list", page))
                while page < 100 and rng.random() < 0.5:
                    page += 1
                    plan.append(("list", page))
            else:
                plan.append(("detail", pick(cumulative, rng.random()) + 1))
        think = rng.expovariate(1.0 / THINK)
        kind, value = plan.pop(0)
        time.sleep(think)
        now = time.monotonic() - start
        if now >= DURATION:
            break
        path = target(mode, kind, value)
        began = time.monotonic()
        try:
            if connection is None:
                connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=15)
            connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
            answer = connection.getresponse()
            answer.read()
            status = answer.status
            if answer.getheader("Connection", "").lower() == "close":
                connection.close()
                connection = None
        except Exception:
            status = 599
            if connection is not None:
                connection.close()
            connection = None
        ended = time.monotonic()
        done.append((began - start, ended - began, kind, path, status))
    if connection is not None:
        connection.close()
    with lock:
        records.extend(done)


def percentile(values, share):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def main():
    mode, base, origin = sys.argv[1], sys.argv[2], sys.argv[3]
    cumulative = zipf_table(PRODUCTS, ZIPF_S)
    origin_call(origin, "PUT", "/__admin/faults", json.dumps({"errorRate": 0}))
    origin_call(origin, "DELETE", "/__admin/counts")
    records, lock = [], threading.Lock()
    server_pid = int(os.environ.get("SERVER_PID", "0"))
    cpu_before = cpu_seconds(server_pid)
    start = time.monotonic()
    threads = [threading.Thread(target=user, args=(n, mode, base, start, cumulative, records, lock)) for n in range(USERS)]
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, OUTAGE_AT - (time.monotonic() - start)))
    before = json_routes(origin)
    origin_call(origin, "PUT", "/__admin/faults", json.dumps({"errorRate": 1}))
    outage_began = time.monotonic() - start
    time.sleep(max(0.0, OUTAGE_AT + OUTAGE_FOR - (time.monotonic() - start)))
    origin_call(origin, "PUT", "/__admin/faults", json.dumps({"errorRate": 0}))
    outage_ended = time.monotonic() - start
    during = json_routes(origin) - before
    for thread in threads:
        thread.join()
    total_origin = json_routes(origin)
    images = image_routes(origin)
    cpu = cpu_seconds(server_pid) - cpu_before

    answered_before = {path for (began, took, kind, path, status) in records if began + took < outage_began and status == 200}
    in_outage = [r for r in records if outage_began <= r[0] < outage_ended]
    failed_known = sum(1 for (began, took, kind, path, status) in in_outage if status >= 500 and path in answered_before)
    failed_all = sum(1 for r in in_outage if r[4] >= 500)
    failed_after = sum(1 for r in records if r[0] >= outage_ended and r[4] >= 500)
    latencies = [r[1] * 1000 for r in records]
    lists = [r[1] * 1000 for r in records if r[2] == "list"]
    # Answers that waited for the origin (its latency is 40 ms): where both p99s fall.
    waited = [latency for latency in latencies if latency >= ORIGIN_MS]
    # The same for details alone: nginx's also hold first views of list pages, which the
    # gateway fetched ahead.
    waited_details = [r[1] * 1000 for r in records if r[2] == "detail" and r[1] * 1000 >= ORIGIN_MS]
    outside = len(records) - len(in_outage)
    result = {
        "server": mode,
        "client_requests": len(records),
        "origin_requests": total_origin,
        "origin_per_1000": round(1000 * total_origin / max(1, len(records)), 1),
        "outage_client_requests": len(in_outage),
        "outage_origin_requests": during,
        "outage_origin_per_1000": round(1000 * during / max(1, len(in_outage)), 1),
        "outside_origin_per_1000": round(1000 * (total_origin - during) / max(1, outside), 1),
        "p50_ms": round(percentile(latencies, 0.5), 2),
        "p99_ms": round(percentile(latencies, 0.99), 2),
        "list_p99_ms": round(percentile(lists, 0.99), 2),
        "waited_share": round(len(waited) / max(1, len(latencies)), 4),
        "waited_p50_ms": round(percentile(waited, 0.5), 2),
        "waited_p90_ms": round(percentile(waited, 0.9), 2),
        "waited_detail_p50_ms": round(percentile(waited_details, 0.5), 2),
        "waited_detail_p90_ms": round(percentile(waited_details, 0.9), 2),
        "origin_image_requests": images,
        "server_cpu_s": round(cpu, 1),
        "outage_5xx": failed_all,
        "outage_5xx_known_pages": failed_known,
        "after_5xx": failed_after,
        "statuses": {str(s): sum(1 for r in records if r[4] == s) for s in sorted({r[4] for r in records})},
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
