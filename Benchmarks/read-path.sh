#!/usr/bin/env bash
# The read path on ONE event loop, on its embedded demo origin, beside nginx on ONE worker
# serving the very bytes the gateway stored (fetched from the gateway first), alternately
# in the same run with wrk:
#   - a cached list page, gzip (what a scrolling app gets);
#   - a cached product detail, identity;
#   - misses: the list page with a TTL of 0, so every request goes to the demo origin
#     (concurrent misses for the page are coalesced into one origin request).
#
#   Benchmarks/read-path.sh          # 5 rounds of 5 s per scenario
#   ROUNDS=3 DURATION=10s Benchmarks/read-path.sh
#   GENERATION=v2b Benchmarks/read-path.sh   # the demo origin (and the gateway) in v2 or v2b
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup

GENERATION=${GENERATION:-v1}
echo "origin generation: $GENERATION"
G=18490
N=18491
start_gateway --host 127.0.0.1 --port "$G" --threads 1 --log-level warning --origin-generation "$GENERATION"
wait_for "http://127.0.0.1:$G/healthz"
curl -fs -H 'Accept-Encoding: gzip' -o "$WORK/list.json.gz" "http://127.0.0.1:$G/v1/products?page=1"
curl -fs -o "$WORK/detail.json" "http://127.0.0.1:$G/v1/products/3"
echo "stored bytes: list page (gzip) $(stat -c %s "$WORK/list.json.gz"), detail $(stat -c %s "$WORK/detail.json")"

start_nginx "$N" "
        location = /list { default_type application/json; add_header Content-Encoding gzip; add_header Vary 'Accept-Encoding, Accept-Language'; alias $WORK/list.json.gz; }
        location = /detail { default_type application/json; add_header Vary 'Accept-Encoding, Accept-Language'; alias $WORK/detail.json; }"

compare "cached list page, gzip: GET /v1/products?page=1" \
    "http://127.0.0.1:$G/v1/products?page=1" "http://127.0.0.1:$N/list" -H 'Accept-Encoding: gzip'
compare "cached product detail: GET /v1/products/3" \
    "http://127.0.0.1:$G/v1/products/3" "http://127.0.0.1:$N/detail"

kill "$GATEWAY_PID"
wait "$GATEWAY_PID" 2>/dev/null || true
start_gateway --host 127.0.0.1 --port "$G" --threads 1 --log-level warning --origin-generation "$GENERATION" --list-ttl 0 --stale-while-revalidate 0
wait_for "http://127.0.0.1:$G/healthz"
: >"$WORK/m.txt"
for _ in $(seq "$ROUNDS"); do measure "http://127.0.0.1:$G/v1/products?page=1" -H 'Accept-Encoding: gzip' >>"$WORK/m.txt"; done
echo "misses (TTL 0, demo origin in-process on the same core): GET /v1/products?page=1"
echo "    gateway: median $(cut -d' ' -f1 "$WORK/m.txt" | median) req/s; p50/p99 per round: $(awk '{printf "%s/%s ", $2, $3}' "$WORK/m.txt")"
