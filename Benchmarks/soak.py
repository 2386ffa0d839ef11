"""The fault soak's load and bookkeeping (Benchmarks/soak.sh starts the servers and runs this).

Mixed load through the gateway for DURATION seconds while the demo origin's faults change on a
schedule; then a report: requests by status, the gateway's resident memory and open descriptors
over time, and every write accounted for. With a second gateway serving TLS (H2_GATEWAY_URL,
https), part of the load goes to it over HTTP/2 as phones send it (soak_h2.py): readers
multiplexing four streams, a writer, clients that never read their answers and clients that
reset streams while the answers arrive; both gateways' memory and descriptors are sampled.

    python3 soak.py GATEWAY_URL ORIGIN_URL GATEWAY_PID DURATION_SECONDS [H2_GATEWAY_URL H2_GATEWAY_PID]
"""

import base64
import collections
import http.client
import json
import os
import random
import socket
import sys
import threading
import time
import urllib.parse

GATEWAY, ORIGIN, PID, DURATION = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
H2_GATEWAY, H2_PID = (sys.argv[5], int(sys.argv[6])) if len(sys.argv) > 6 else (None, None)
if H2_GATEWAY:
    import soak_h2
    CLIENT_ERRORS = (OSError, http.client.HTTPException) + soak_h2.ERRORS
else:
    CLIENT_ERRORS = (OSError, http.client.HTTPException)
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
OUTCOME_UNKNOWN = "urn:open-market-gateway:problem:outcome-unknown"

lock = threading.Lock()
statuses = collections.Counter()
creates = {"created": 0, "unknown": 0, "deleted": 0, "delete_unknown": 0, "keyed_titles": set()}
# Per title (each create has a title of its own): what the gateway said of its create
# ("created", "unknown", "refused", or "client error" when the client saw no answer), and
# whether it was deleted (200) or maybe deleted (outcome unknown).
outcomes = {}
deleted_titles = set()
maybe_deleted_titles = set()
samples = []
stop_at = time.monotonic() + DURATION
# Seconds each fault setting lasts (PHASE_SECONDS; a minute unless a quick check asks less).
PHASE = float(os.environ.get("PHASE_SECONDS", 60))


def connection(base):
    """An HTTP/1.1 connection; over TLS (ALPN http/1.1, the soak's certificate unchecked) for an
    https URL."""
    parts = urllib.parse.urlsplit(base)
    if parts.scheme == "https":
        return http.client.HTTPSConnection(parts.hostname, parts.port, timeout=15, context=soak_h2.tls_context("http/1.1"))
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)


def call(conn, method, path, body=None, headers=None):
    """One exchange on an HTTP/1.1 connection or an HTTP/2 one (soak_h2): (status, etag, body)."""
    payload = None if body is None else json.dumps(body).encode()
    all_headers = {"Content-Type": "application/json"} if payload is not None else {}
    all_headers.update(headers or {})
    if not isinstance(conn, http.client.HTTPConnection):
        return conn.call(method, path, payload, all_headers)
    conn.request(method, path, body=payload, headers=all_headers)
    response = conn.getresponse()
    data = response.read()
    return response.status, response.getheader("ETag"), data


def pick_path(rng, conn, kind):
    """A list page, a detail, or (after reading a detail) one of its thumbnails; None when the
    detail had none to give."""
    roll = rng.random()
    if roll < 0.45:
        return "/v1/products?page=%d" % rng.randint(1, 8)
    if roll < 0.85:
        return "/v1/products/%d" % rng.randint(1, 140)
    status, _, data = call(conn, "GET", "/v1/products/%d" % rng.randint(1, 127))
    record(kind + " detail", status)
    if status != 200:
        return None
    thumbnails = json.loads(data).get("thumbnails") or []
    return thumbnails[0] if thumbnails else None


def reader(worker, base=GATEWAY, kind="GET"):
    """HTTP/1.1 reads, one at a time on a keep-alive connection (to `base`: over TLS for the
    HTTP/2 gateway's URL, counted as `kind`)."""
    rng = random.Random(worker)
    conn = connection(base)
    etags = {}
    while time.monotonic() < stop_at:
        try:
            path = pick_path(rng, conn, kind)
            if path is None:
                continue
            headers = {"If-None-Match": etags[path]} if path in etags and rng.random() < 0.3 else {}
            status, etag, _ = call(conn, "GET", path, headers=headers)
            if etag:
                etags[path] = etag
            record(kind, status)
        except CLIENT_ERRORS:
            record(kind, "connection error")
            conn.close()
            conn = connection(base)


def h2_reader(worker):
    """HTTP/2 over TLS: four requests at a time on one connection, as an app's screen asks."""
    rng = random.Random(100 + worker)
    conn = None
    etags = {}
    while time.monotonic() < stop_at:
        try:
            if conn is None:
                conn = soak_h2.Connection(H2_GATEWAY)
            paths = [path for path in (pick_path(rng, conn, "h2 GET") for _ in range(4)) if path]
            requests = [("GET", path, None, {"accept-encoding": "gzip", **({"if-none-match": etags[path]} if path in etags and rng.random() < 0.3 else {})})
                        for path in paths]
            for path, (status, etag, _) in zip(paths, conn.many(requests)):
                if etag:
                    etags[path] = etag
                record("h2 GET", status)
        except CLIENT_ERRORS:
            record("h2 GET", "connection error")
            if conn:
                conn.close()
            conn = None


def writer(worker, h2=False):
    """Creates (half with an Idempotency-Key, retried once after an unknown outcome), updates and
    deletes, each title its own; over HTTP/2 with TLS to the second gateway when `h2`."""
    rng = random.Random(1000 + worker)
    connect = (lambda: soak_h2.Connection(H2_GATEWAY)) if h2 else (lambda: connection(GATEWAY))
    conn = connect()
    serial = 0
    while time.monotonic() < stop_at:
        serial += 1
        title = "soak-%d-%d" % (worker, serial)
        body = {"title": title, "description": "soak", "price": 1000, "currency": "KRW", "stock": 3,
                "password": "pw", "images": [{"data": base64.b64encode(PNG).decode()}]}
        keyed = rng.random() < 0.5
        headers = {"Idempotency-Key": "key-" + title} if keyed else {}
        try:
            # A keyed create is retried once after an unknown outcome, with the same key.
            for attempt in range(2 if keyed else 1):
                status, _, data = call(conn, "POST", "/v1/products", body, headers)
                record("POST", status)
                kind = json.loads(data).get("type") if status >= 500 and data else None
                with lock:
                    # A retry with the key is answered from the key's record (a replay), or
                    # creates for the first time when the first attempt never reached the origin.
                    if status == 201:
                        creates["created"] += 1
                        outcomes[title] = "created"
                    elif kind == OUTCOME_UNKNOWN:
                        outcomes[title] = "unknown"
                    elif outcomes.get(title) != "unknown":
                        outcomes[title] = "refused"
                    if kind == OUTCOME_UNKNOWN and attempt == 0:
                        creates["unknown"] += 1
                    if keyed:
                        creates["keyed_titles"].add(title)
                if status == 201:
                    product = json.loads(data)["id"]
                    status, _, _ = call(conn, "PATCH", "/v1/products/%d" % product, {"password": "pw", "stock": 1})
                    record("PATCH", status)
                    # Keyed creates stay, so the catalogue can show whether one was made twice.
                    if not keyed and rng.random() < 0.5:
                        status, _, data = call(conn, "DELETE", "/v1/products/%d" % product, {"password": "pw"})
                        record("DELETE", status)
                        unknown = status >= 500 and data and json.loads(data).get("type") == OUTCOME_UNKNOWN
                        with lock:
                            if status == 200:
                                creates["deleted"] += 1
                                deleted_titles.add(title)
                            elif unknown:
                                creates["delete_unknown"] += 1
                                maybe_deleted_titles.add(title)
                    break
                if kind != OUTCOME_UNKNOWN:
                    break
        except CLIENT_ERRORS + (ValueError,):
            record("write", "connection error")
            with lock:
                outcomes.setdefault(title, "client error")
                if title in outcomes and outcomes[title] == "created":
                    # The error came later, in the update or the delete: that delete may have happened.
                    maybe_deleted_titles.add(title)
            conn.close()
            conn = connect()


def slow_client():
    """Opens connections that trickle a head, or ask for a list and never read it."""
    parts = urllib.parse.urlsplit(GATEWAY)
    while time.monotonic() < stop_at:
        try:
            trickle = socket.create_connection((parts.hostname, parts.port), timeout=30)
            trickle.sendall(b"GET /v1/products?page=1 HTTP/1.1\r\n")
            unread = socket.create_connection((parts.hostname, parts.port), timeout=30)
            unread.sendall(b"GET /v1/products?page=1 HTTP/1.1\r\nHost: s\r\n\r\n" * 50)
            time.sleep(5)
            trickle.sendall(b"Host: s\r\n")
            time.sleep(5)
            trickle.close()
            unread.close()
            record("slow client", "done")
        except OSError:
            record("slow client", "connection error")


def h2_slow_clients():
    """Over HTTP/2 with TLS: a client that asks for ten list pages with a 1 KiB stream window
    and reads nothing for 35 s (past the gateway's 30 s write deadline), then one that resets two of four streams as their answers
    arrive (its 1 KiB stream window keeps them coming in pieces) and asks again on the same
    connection."""
    rng = random.Random(7)
    while time.monotonic() < stop_at:
        try:
            ending = soak_h2.never_reads(H2_GATEWAY, ["/v1/products?page=%d" % page for page in range(1, 11)], 35)
            record("h2 never reads", ending)
        except CLIENT_ERRORS:
            record("h2 never reads", "connection error")
        try:
            conn = soak_h2.Connection(H2_GATEWAY, stream_window=1024)
            try:
                paths = ["/v1/products?page=%d" % rng.randint(1, 8), "/v1/products/%d" % rng.randint(1, 127)] * 2
                for status, _, _ in conn.many([("GET", path, None, {"accept-encoding": "gzip"}) for path in paths], reset_on_headers=(0, 1)):
                    record("h2 reset", status)
                status, _, _ = conn.call("GET", "/v1/products?page=1")
                record("h2 after reset", status)
            finally:
                conn.close()
        except CLIENT_ERRORS:
            record("h2 reset", "connection error")


def faults():
    """The origin's fault schedule, repeated: calm, errors, drops, lost answers (carried out, then
    the connection reset), slow answers (300 ms, inside
    the gateway's origin timeout), late answers (800 ms, past it: the origin still makes what a
    write asked for, after the gateway has answered), down; a minute each."""
    schedule = [
        ({"errorRate": 0, "dropRate": 0, "lostAnswerRate": 0, "latencyMs": 0, "down": False}, PHASE),
        ({"errorRate": 0.2}, PHASE),
        ({"errorRate": 0, "dropRate": 0.1}, PHASE),
        ({"dropRate": 0, "lostAnswerRate": 0.1}, PHASE),
        ({"lostAnswerRate": 0, "latencyMs": 300}, PHASE),
        ({"latencyMs": 800}, PHASE),
        ({"latencyMs": 0, "down": True}, PHASE),
    ]
    def admin(change):
        # A fresh connection each time: the origin closes idle ones.
        conn = connection(ORIGIN)
        try:
            call(conn, "PUT", "/__admin/faults", change)
        finally:
            conn.close()

    while time.monotonic() < stop_at:
        for change, seconds in schedule:
            if time.monotonic() >= stop_at:
                break
            admin(change)
            print("faults: %s" % json.dumps(change), flush=True)
            time.sleep(min(seconds, max(0, stop_at - time.monotonic())))
    admin({"errorRate": 0, "dropRate": 0, "lostAnswerRate": 0, "latencyMs": 0, "down": False})


def resident(pid):
    """(resident MiB, open descriptors) of process `pid`."""
    rss = 0
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return rss // 1024, len(os.listdir("/proc/%d/fd" % pid))


def sampler():
    while time.monotonic() < stop_at:
        second = round(DURATION - (stop_at - time.monotonic()))
        samples.append((second, *resident(PID), *(resident(H2_PID) if H2_PID else ())))
        time.sleep(10)


def record(kind, status):
    with lock:
        statuses[(kind, status)] += 1


# Ids are given in order and never reused: the largest before the load is the baseline.
_conn = connection(ORIGIN)
_, _, _before = call(_conn, "GET", "/__admin/catalogue")
BASELINE_ID = max(item["id"] for item in json.loads(_before)["items"])
_conn.close()

# With the TLS gateway: three of the eight readers over HTTP/2 and one over HTTP/1.1, one of
# the two writers and a pair of misbehaving clients use it.
plain_readers = 4 if H2_GATEWAY else 8
threads = [threading.Thread(target=reader, args=(n,)) for n in range(plain_readers)]
if H2_GATEWAY:
    threads.append(threading.Thread(target=reader, args=(plain_readers, H2_GATEWAY, "TLS GET")))
    threads += [threading.Thread(target=h2_reader, args=(n,)) for n in range(3)]
threads += [threading.Thread(target=writer, args=(n, H2_GATEWAY is not None and n == 1)) for n in range(2)]
threads += [threading.Thread(target=slow_client), threading.Thread(target=faults), threading.Thread(target=sampler)]
if H2_GATEWAY:
    threads.append(threading.Thread(target=h2_slow_clients))
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
time.sleep(2)

conn = connection(ORIGIN)
_, _, counts = call(conn, "GET", "/__admin/counts")
origin_requests = json.loads(counts)["routes"].get("POST /item", 0)
_, _, catalogue = call(conn, "GET", "/__admin/catalogue")
titles = collections.Counter(item["title"] for item in json.loads(catalogue)["items"])
# What the origin really made, deleted products included: ids are given in order and never
# reused, so one more create straight at the origin (faults off) gets id BASELINE_ID + made + 1.
boundary = "soak-probe"
fields = [("title", "soak probe"), ("descriptions", "probe"), ("price", "1"), ("currency", "KRW"), ("stock", "1"),
          ("password", "pw")]
form = b"".join(b'--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n' % (boundary.encode(), name.encode(), value.encode())
                for name, value in fields)
form += (b'--%s\r\nContent-Disposition: form-data; name="images[]"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'
         % boundary.encode()) + PNG + b"\r\n--%s--\r\n" % boundary.encode()
conn.request("POST", "/item", body=form, headers={"Content-Type": "multipart/form-data; boundary=" + boundary})
probe = conn.getresponse()
probe_body = probe.read()
if probe.status not in (200, 201):  # v1 answers a create with 200
    sys.exit("soak: the probe create at the origin got %d: %r" % (probe.status, probe_body[:200]))
made = json.loads(probe_body)["id"] - BASELINE_ID - 1
print("\nrequests by kind and status:")
for (kind, status), count in sorted(statuses.items(), key=lambda entry: (entry[0][0], str(entry[0][1]))):
    print("  %-12s %-18s %8d" % (kind, status, count))
if H2_PID:
    print("\nseconds, gateway RSS MiB, open descriptors; the HTTP/2 (TLS) gateway's RSS MiB, open descriptors:")
else:
    print("\nseconds, gateway RSS MiB, open descriptors:")
for sample in samples:
    print("  %5d" % sample[0] + "".join(" %6d" % value for value in sample[1:]))
print("\nwrites: the origin received %d create requests and made %d products; the gateway answered %d with 201 "
      "and %d with outcome-unknown" % (origin_requests, made, creates["created"], creates["unknown"]))
# Every product made was answered 201, or its answer said the outcome was unknown.
balanced = creates["created"] <= made <= creates["created"] + creates["unknown"]
print("  soak products still in the catalogue: %d; deleted with 200: %d; deletes whose outcome was unknown: %d"
      % (sum(count for title, count in titles.items() if title.startswith("soak-")), creates["deleted"], creates["delete_unknown"]))
twice = [title for title in creates["keyed_titles"] if titles.get(title, 0) > 1]
# Title by title: no create made twice (keyed or not), none made that the gateway refused or
# said nothing of, none answered 201 that is missing without a delete that may explain it.
soak_titles = {title for title in titles if title.startswith("soak-")}
duplicated = sorted(title for title in soak_titles if titles[title] > 1)
unexplained = sorted(title for title in soak_titles if outcomes.get(title) not in ("created", "unknown", "client error"))
missing = sorted(title for title, outcome in outcomes.items()
                 if outcome == "created" and title not in soak_titles and title not in deleted_titles | maybe_deleted_titles)
print("  every create accounted for: %s" % ("yes" if balanced else "NO"))
print("  keyed creates that reached the origin twice: %d" % len(twice))
print("  titles made more than once: %d; made though refused or never sent: %d; answered 201 but missing: %d"
      % (len(duplicated), len(unexplained), len(missing)))
for name, titles_list in (("twice", duplicated), ("unexplained", unexplained), ("missing", missing)):
    if titles_list:
        print("    %s: %s" % (name, ", ".join(titles_list[:10])))
# A client that never reads must not hold its streams past the write deadline.
stuck = statuses[("h2 never reads", "still waiting")]
if H2_GATEWAY:
    print("  HTTP/2 clients that never read and still held their streams past the write deadline: %d" % stuck)
sys.exit(0 if balanced and not twice and not duplicated and not unexplained and not missing and not stuck else 1)
