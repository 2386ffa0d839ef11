#!/usr/bin/env python3
"""What clients see while the Redis primary fails over (issue 43): USERS readers (threads,
one keep-alive connection each, spread over the gateways) read product details of Zipf(1.1)
popularity over PRODUCTS products (0: every product the origin has, found by asking) and
the list pages, back to back, for DURATION seconds. At
KILL_AT the primary (PRIMARY_PID) is killed with SIGKILL; the sentinel on SENTINEL_PORT is
asked every 20 ms until it names the replica's port (REPLICA_PORT), and every gateway's
/readyz until its `redisPrimary` is the new one.

    failover.py GATEWAY_URL...

Prints one JSON object: requests and errors (any answer but 200, or none) overall, before
the kill, during the switch (from the kill to 2 s after the sentinels switched) and after;
p50/p99/max latency in each window; the seconds from the kill to the sentinels' switch and
to each gateway following it.
"""

import http.client
import json
import os
import random
import signal
import socket
import sys
import threading
import time
import urllib.parse

# The same Zipf table and draw as the outage workload (Benchmarks/outage.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outage import pick, zipf_table  # noqa: E402

USERS = int(os.environ.get("USERS", "32"))
DURATION = float(os.environ.get("DURATION_S", "16"))
KILL_AT = float(os.environ.get("KILL_AT", "5"))
PRODUCTS = int(os.environ.get("PRODUCTS", "0"))
PRIMARY_PID = int(os.environ["PRIMARY_PID"])
SENTINEL_PORT = int(os.environ["SENTINEL_PORT"])
REPLICA_PORT = int(os.environ["REPLICA_PORT"])
MASTER = os.environ.get("MASTER", "omg")


def ask_sentinel():
    """The port the sentinel names for MASTER, or None."""
    try:
        with socket.create_connection(("127.0.0.1", SENTINEL_PORT), timeout=1) as s:
            name = MASTER.encode()
            s.sendall(b"*3\r\n$8\r\nSENTINEL\r\n$23\r\nget-master-addr-by-name\r\n$%d\r\n%s\r\n" % (len(name), name))
            data = b""
            while data.count(b"\r\n") < 5 and not data.startswith(b"*-1") and not data.startswith(b"-"):
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        lines = data.split(b"\r\n")
        return int(lines[4]) if len(lines) > 4 and lines[0] == b"*2" else None
    except (OSError, ValueError):
        return None


def primary_of(base):
    parsed = urllib.parse.urlsplit(base)
    try:
        connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=2)
        connection.request("GET", "/readyz")
        body = json.loads(connection.getresponse().read())
        connection.close()
        return body.get("redisPrimary")
    except (OSError, ValueError):
        return None


def status_of(base, path):
    parsed = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=5)
    connection.request("GET", path)
    answer = connection.getresponse()
    answer.read()
    connection.close()
    return answer.status


def products_of(base):
    """The highest product id that answers 200 (ids are 1…n)."""
    low, high = 1, 100_000
    while low < high:
        middle = (low + high + 1) // 2
        if status_of(base, f"/v1/products/{middle}") == 200:
            low = middle
        else:
            high = middle - 1
    return low


def reader(number, bases, start, cumulative, pages, records, lock):
    rng = random.Random(43_000 + number)
    parsed = urllib.parse.urlsplit(bases[number % len(bases)])
    connection = None
    mine = []
    while True:
        began = time.monotonic()
        if began - start >= DURATION:
            break
        if rng.random() < 0.2:
            path = f"/v1/products?page={1 + int(rng.random() * pages)}"
        else:
            path = f"/v1/products/{pick(cumulative, rng.random()) + 1}"
        try:
            if connection is None:
                connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
            connection.request("GET", path)
            answer = connection.getresponse()
            answer.read()
            status = answer.status
        except Exception:
            status = 0
            if connection is not None:
                connection.close()
            connection = None
        ended = time.monotonic()
        mine.append((began - start, ended - began, status, path))
    with lock:
        records.extend(mine)


def summary(rows):
    latencies = sorted(row[1] for row in rows)
    def at(q):
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000, 2) if latencies else None
    statuses = {}
    for row in rows:
        statuses[str(row[2])] = statuses.get(str(row[2]), 0) + 1
    return {"requests": len(rows), "errors": sum(1 for row in rows if row[2] != 200), "statuses": statuses,
            "p50_ms": at(0.5), "p99_ms": at(0.99), "max_ms": round(latencies[-1] * 1000, 2) if latencies else None}


def main():
    bases = sys.argv[1:]
    products = PRODUCTS or products_of(bases[0])
    pages = max(1, min(5, products // 20))
    cumulative = zipf_table(products, 1.1)
    records, lock = [], threading.Lock()
    start = time.monotonic()
    threads = [threading.Thread(target=reader, args=(n, bases, start, cumulative, pages, records, lock)) for n in range(USERS)]
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, KILL_AT - (time.monotonic() - start)))
    killed = time.monotonic() - start
    os.kill(PRIMARY_PID, signal.SIGKILL)
    switched = None
    followed = {}
    new = f"127.0.0.1:{REPLICA_PORT}"
    while time.monotonic() - start < DURATION and (switched is None or len(followed) < len(bases)):
        now = time.monotonic() - start
        if switched is None and ask_sentinel() == REPLICA_PORT:
            switched = now
        for base in bases:
            if base not in followed and primary_of(base) == new:
                followed[base] = time.monotonic() - start
        time.sleep(0.02)
    for thread in threads:
        thread.join()
    end_of_switch = (switched if switched is not None else DURATION) + 2.0
    print(json.dumps({
        "users": USERS, "products": products, "duration_s": DURATION, "kill_at_s": round(killed, 3),
        "switch_after_kill_s": round(switched - killed, 3) if switched is not None else None,
        "gateways_followed_after_kill_s": [round(followed[b] - killed, 3) if b in followed else None for b in bases],
        "all": summary(records),
        "before_kill": summary([r for r in records if r[0] < killed]),
        "during_switch": summary([r for r in records if killed <= r[0] < end_of_switch]),
        "after": summary([r for r in records if r[0] >= end_of_switch]),
        "slowest": [[round(r[0], 3), round(r[1] * 1000, 1), r[2], r[3]] for r in sorted(records, key=lambda r: -r[1])[:8]],
    }))


if __name__ == "__main__":
    main()
