#!/usr/bin/env bash
# Cache hits on ONE event loop beside nginx on ONE worker (tuned as its users tune it:
# sendfile, tcp_nodelay, open_file_cache, access log off, keepalive_requests high) serving
# the very bytes the gateway stored, fetched from the gateway first. Gateway and nginx
# rounds alternate, in one run:
#   - GET /healthz against nginx's `return 200` of the same body;
#   - a cached list page (gzip), a cached product detail, a cached image (memory tier);
#   - each at CONNECTIONS (default 50) and at 1,000 connections;
#   - a cached list page and /healthz with the access log on (--log-level info);
#   - a cached image from the disk tier (the gateway restarted with --image-memory-bytes 0);
#   - what rate limits cost a hit: a second gateway with --rate-limit-reads/-images (budgets
#     far above what wrk sends: every answer is a 200 hit with RateLimit fields) against the
#     first, the same bytes, alternating rounds.
#
#   Benchmarks/hits.sh                       # 5 rounds of 4 s per scenario
#   ROUNDS=3 DURATION=5s Benchmarks/hits.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-4s}
source Benchmarks/lib.sh
bench_setup

G=18494
I=18495
N=18496
L=18497
CACHE="$WORK/cache"
start_gateway --host 127.0.0.1 --port "$G" --threads 1 --log-level warning --cache-dir "$CACHE" --list-ttl 3600 --detail-ttl 3600
wait_for "http://127.0.0.1:$G/healthz"
fetch_stored "$G"

start_nginx "$N" "
        location = /healthz { default_type application/json; add_header Cache-Control no-store; return 200 '{\"status\":\"ok\"}'; }
        location = /list { default_type application/json; add_header Content-Encoding gzip; add_header Vary 'Accept-Encoding, Accept-Language'; alias $WORK/list.json.gz; }
        location = /detail { default_type application/json; add_header Vary 'Accept-Encoding, Accept-Language'; alias $WORK/detail.json; }
        location = /image { default_type image/png; add_header Cache-Control 'public, max-age=31536000, immutable'; alias $WORK/image.png; }"

scenarios() {
    compare "GET /healthz [c=$CONNECTIONS]" "http://127.0.0.1:$1/healthz" "http://127.0.0.1:$N/healthz"
    compare "cached list page, gzip [c=$CONNECTIONS]" "http://127.0.0.1:$1/v1/products?page=1" "http://127.0.0.1:$N/list" -H 'Accept-Encoding: gzip'
    compare "cached detail [c=$CONNECTIONS]" "http://127.0.0.1:$1/v1/products/3" "http://127.0.0.1:$N/detail"
    compare "cached image, memory tier [c=$CONNECTIONS]" "http://127.0.0.1:$1$IMAGE" "http://127.0.0.1:$N/image"
}
scenarios "$G"
saved=$CONNECTIONS
CONNECTIONS=1000
scenarios "$G"
CONNECTIONS=$saved

PLAIN_PID=$GATEWAY_PID
start_gateway --host 127.0.0.1 --port "$L" --threads 1 --log-level warning --cache-dir "$CACHE" --list-ttl 3600 --detail-ttl 3600 \
    --rate-limit-reads 1000000/s --rate-limit-images 1000000/s
wait_for "http://127.0.0.1:$L/healthz"
curl -fs -o /dev/null "http://127.0.0.1:$L/v1/products/3"
curl -fs -o /dev/null "http://127.0.0.1:$L$IMAGE"
curl -fsI "http://127.0.0.1:$L/v1/products/3" | grep -i '^ratelimit'
# A control: /healthz spends no budget, so its ratio is the noise between the two.
compare_named "GET /healthz (no budget: control), limits gateway / plain [c=$CONNECTIONS]" limits "http://127.0.0.1:$L/healthz" plain "http://127.0.0.1:$G/healthz"
compare_named "cached detail, rate limits on / off [c=$CONNECTIONS]" limits "http://127.0.0.1:$L/v1/products/3" plain "http://127.0.0.1:$G/v1/products/3"
compare_named "cached image, rate limits on / off [c=$CONNECTIONS]" limits "http://127.0.0.1:$L$IMAGE" plain "http://127.0.0.1:$G$IMAGE"
kill "$GATEWAY_PID" "$PLAIN_PID"
wait "$GATEWAY_PID" "$PLAIN_PID" 2>/dev/null || true

# The access log on: the same gateway, --log-level info, lines to a file.
start_gateway --host 127.0.0.1 --port "$I" --threads 1 --log-level info --cache-dir "$CACHE" --list-ttl 3600 --detail-ttl 3600
wait_for "http://127.0.0.1:$I/healthz"
curl -fs -o /dev/null -H 'Accept-Encoding: gzip' "http://127.0.0.1:$I/v1/products?page=1"
compare "GET /healthz, access log on [c=$CONNECTIONS]" "http://127.0.0.1:$I/healthz" "http://127.0.0.1:$N/healthz"
compare "cached list page, gzip, access log on [c=$CONNECTIONS]" "http://127.0.0.1:$I/v1/products?page=1" "http://127.0.0.1:$N/list" -H 'Accept-Encoding: gzip'
kill "$GATEWAY_PID"
wait "$GATEWAY_PID" 2>/dev/null || true

# The disk tier: no memory tier, so every hit is read from the file.
start_gateway --host 127.0.0.1 --port "$G" --threads 1 --log-level warning --cache-dir "$CACHE" --image-memory-bytes 0
wait_for "http://127.0.0.1:$G/healthz"
curl -fsI "http://127.0.0.1:$G$IMAGE" | grep -i '^cache-status'
compare "cached image, disk tier [c=$CONNECTIONS]" "http://127.0.0.1:$G$IMAGE" "http://127.0.0.1:$N/image"
