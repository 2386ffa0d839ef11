#!/usr/bin/env bash
# Issue 29's workload: USERS (200) app users for 70 s through a cache in front of the demo
# origin (v1, 2,000 products, 40 ms per answer), which answers every request with 500 for
# 10 s in the middle; the same seeded request sequence through the gateway and through nginx
# as a caching reverse proxy tuned for it (proxy_cache with the gateway's TTLs,
# proxy_cache_use_stale updating error timeout http_5xx, proxy_cache_background_update,
# proxy_cache_lock, an upstream keep-alive pool). ROUNDS (3) alternating rounds, each server
# started afresh with an empty cache for each round and the demo origin reset before it; the
# first server alternates between rounds (gateway first in odd rounds). Prints each round's
# figures (Benchmarks/outage.py), then the medians over the rounds and their ratios. Servers
# on CPU 0, the client and the origin on CPU 1.
#   USERS=50 DURATION_S=30 OUTAGE_AT=10 OUTAGE_FOR=10 ROUNDS=1 Benchmarks/outage.sh   a shorter run
#   SERVERS=gateway GATEWAY_FLAGS="--origin-breaker-open 10" Benchmarks/outage.sh
#       the gateway alone, with other settings (how the breaker's defaults were chosen)
#   PROBE=1 Benchmarks/outage.sh
#       no outage: a miss like for like, one at a time through both servers in turn
#       (Benchmarks/miss_probe.py, PROBES products no one else reads) while the workload runs
#       through the gateway, then while it runs through nginx
set -euo pipefail
cd "$(dirname "$0")/.."
OUTAGE_ROUNDS=${ROUNDS:-3}
# shellcheck source=Benchmarks/lib.sh
. Benchmarks/lib.sh
bench_setup
swift build -c release --product demo-origin >&2
ORIGIN_BIN="$(swift build -c release --show-bin-path)/demo-origin"
ORIGIN_PORT=${ORIGIN_PORT:-18303}
GATEWAY_PORT=${GATEWAY_PORT:-18301}
NGINX_PORT=${NGINX_PORT:-18302}

PRODUCTS_READ=${PRODUCTS:-2000}
PROBES=${PROBES:-300}
# The workload reads products 1 to PRODUCTS; PROBE's misses read the 2 × PROBES after them.
catalogue=$PRODUCTS_READ
[ -n "${PROBE:-}" ] && catalogue=$((PRODUCTS_READ + 2 * PROBES))
python3 - "$WORK/catalogue.json" "$catalogue" <<'PY'
import json, sys
path, count = sys.argv[1], int(sys.argv[2])
items = [{"id": i, "title": f"Product {i}", "descriptions": f"Description of product {i}. " * 4,
          "price": 1000 + i, "currency": "KRW", "stock": i % 17, "registration_date": 1611523563.7237701 + i,
          "password": "password", "image_count": 1} for i in range(1, count + 1)]
json.dump({"items": items}, open(path, "w"))
PY
$CLIENT_CPU "$ORIGIN_BIN" --port "$ORIGIN_PORT" --latency-ms 40 --data-file "$WORK/catalogue.json" --log-level warning 2>"$WORK/origin.log" &
BENCH_PIDS+=($!)
wait_for "http://127.0.0.1:$ORIGIN_PORT/items/1"

ROUNDS=$OUTAGE_ROUNDS
SERVERS=${SERVERS:-gateway nginx}

proxy="proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection \"\";
        proxy_cache pages; proxy_cache_valid 404 5s; proxy_ignore_headers Cache-Control Expires Set-Cookie;
        proxy_cache_use_stale updating error timeout http_500 http_502 http_503 http_504;
        proxy_cache_background_update on; proxy_cache_lock on; proxy_cache_lock_timeout 5s;
        proxy_connect_timeout 2s; proxy_read_timeout 5s;"
nginx_locations="
        location /items/ { $proxy proxy_cache_valid 200 30s; }
        location /item/ { $proxy proxy_cache_valid 200 60s; }
        location / { return 404; }"

# Starts `$1` (gateway or nginx) with an empty cache; sets SERVER_PID (the process serving)
# and URL.
start_cache() {
    if [ "$1" = gateway ]; then
        rm -rf "$WORK/gateway-cache"
        # shellcheck disable=SC2086
        start_gateway --host 127.0.0.1 --port "$GATEWAY_PORT" --threads 1 --origin "http://127.0.0.1:$ORIGIN_PORT" \
            --cache-dir "$WORK/gateway-cache" --log-level warning ${GATEWAY_FLAGS:-}
        URL="http://127.0.0.1:$GATEWAY_PORT"
        wait_for "$URL/healthz"
        SERVER_PID=$GATEWAY_PID
    else
        rm -rf "$WORK/nginx-cache"
        NGINX_HTTP="proxy_cache_path $WORK/nginx-cache levels=1:2 keys_zone=pages:32m max_size=512m inactive=60m use_temp_path=off;
    upstream origin { server 127.0.0.1:$ORIGIN_PORT; keepalive 32; }" start_nginx "$NGINX_PORT" "$nginx_locations"
        URL="http://127.0.0.1:$NGINX_PORT"
        SERVER_PID=$(pgrep -P "$(cat "$WORK/nginx.pid")" | head -1)
    fi
}

# Stops `$1` (gateway or nginx) and waits until it is gone (so its port is free).
stop_cache() {
    local pid=$GATEWAY_PID
    [ "$1" = nginx ] && pid=$(cat "$WORK/nginx.pid")
    kill "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    [ "$1" = nginx ] && rm -f "$WORK/nginx.pid"
    return 0
}

if [ -n "${PROBE:-}" ]; then
    # Like for like: while the workload (no outage) runs through one server, detail misses
    # one at a time through both in turn (Benchmarks/miss_probe.py, products the workload
    # never reads); then the same with the workload on the other.
    export OUTAGE_AT=${DURATION_S:-70} OUTAGE_FOR=0
    echo "misses one at a time through both while ${USERS:-200} users read through one, ${DURATION_S:-70} s each"
    start_cache gateway
    gateway_url=$URL gateway_pid=$SERVER_PID
    start_cache nginx
    nginx_url=$URL nginx_pid=$SERVER_PID
    for loaded in gateway nginx; do
        curl -fs -X POST "http://127.0.0.1:$ORIGIN_PORT/__admin/reset" >/dev/null
        url=$gateway_url pid=$gateway_pid
        [ "$loaded" = nginx ] && url=$nginx_url pid=$nginx_pid
        SERVER_PID=$pid $CLIENT_CPU python3 Benchmarks/outage.py "$loaded" "$url" "http://127.0.0.1:$ORIGIN_PORT" >"$WORK/load.json" &
        workload=$!
        sleep 5
        first=$((PRODUCTS_READ + 1))
        [ "$loaded" = nginx ] && first=$((PRODUCTS_READ + PROBES + 1))
        echo "workload through $loaded; misses: $($CLIENT_CPU python3 Benchmarks/miss_probe.py "$gateway_url" "$nginx_url" "$first" "$PROBES")"
        wait "$workload"
        echo "    the workload's own: $(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print("p99", d["p99_ms"], "ms; details that waited: p50", d["waited_detail_p50_ms"], "p90", d["waited_detail_p90_ms"], "ms")' "$WORK/load.json")"
    done
    exit 0
fi

# One round of `$1` (gateway or nginx): the server started with an empty cache, the origin
# reset, the workload; outage.py's JSON goes to $WORK/round.json; the server is stopped after.
round_of() {
    curl -fs -X POST "http://127.0.0.1:$ORIGIN_PORT/__admin/reset" >/dev/null
    start_cache "$1"
    SERVER_PID=$SERVER_PID $CLIENT_CPU python3 Benchmarks/outage.py "$1" "$URL" "http://127.0.0.1:$ORIGIN_PORT" >"$WORK/round.json"
    stop_cache "$1"
}

echo "users ${USERS:-200}, ${DURATION_S:-70} s, outage at ${OUTAGE_AT:-30} s for ${OUTAGE_FOR:-10} s, ${PRODUCTS:-2000} products, origin 40 ms, $ROUNDS rounds"
: >"$WORK/rounds.jsonl"
for round in $(seq "$ROUNDS"); do
    order=$SERVERS
    # Alternate who goes first, so a drift over the run (the machine's, the origin's) does
    # not fall on one server.
    [ $((round % 2)) -eq 0 ] && order=$(echo "$SERVERS" | tr ' ' '\n' | tac | tr '\n' ' ')
    for server in $order; do
        round_of "$server"
        echo "round $round $(cat "$WORK/round.json")"
        cat "$WORK/round.json" >>"$WORK/rounds.jsonl"
    done
done
python3 Benchmarks/outage_summary.py "$WORK/rounds.jsonl"
