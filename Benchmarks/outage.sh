#!/usr/bin/env bash
# Issue 29's workload: USERS (200) app users for 70 s through a cache in front of the demo
# origin (v1, 2,000 products, 40 ms per answer), which answers every request with 500 for
# 10 s in the middle; the same seeded request sequence through the gateway and through nginx
# as a caching reverse proxy tuned for it (proxy_cache with the gateway's TTLs,
# proxy_cache_use_stale updating error timeout http_5xx, proxy_cache_background_update,
# proxy_cache_lock, an upstream keep-alive pool). One run of each, gateway first; the demo
# origin is reset between them. Prints each run's figures (Benchmarks/outage.py) and the
# ratios. Servers on CPU 0, the client and the origin on CPU 1.
#   USERS=50 DURATION_S=30 OUTAGE_AT=10 OUTAGE_FOR=10 Benchmarks/outage.sh   a shorter run
#   SERVERS=gateway GATEWAY_FLAGS="--origin-breaker-open 10" Benchmarks/outage.sh
#       the gateway alone, with other settings (how the breaker's defaults were chosen)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=Benchmarks/lib.sh
. Benchmarks/lib.sh
bench_setup
swift build -c release --product demo-origin >&2
ORIGIN_BIN="$(swift build -c release --show-bin-path)/demo-origin"
ORIGIN_PORT=${ORIGIN_PORT:-18303}
GATEWAY_PORT=${GATEWAY_PORT:-18301}
NGINX_PORT=${NGINX_PORT:-18302}

python3 - "$WORK/catalogue.json" "${PRODUCTS:-2000}" <<'PY'
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

start_gateway --host 127.0.0.1 --port "$GATEWAY_PORT" --threads 1 --origin "http://127.0.0.1:$ORIGIN_PORT" \
    --cache-dir "$WORK/gateway-cache" --log-level warning ${GATEWAY_FLAGS:-}
wait_for "http://127.0.0.1:$GATEWAY_PORT/healthz"

proxy="proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection \"\";
        proxy_cache pages; proxy_cache_valid 404 5s; proxy_ignore_headers Cache-Control Expires Set-Cookie;
        proxy_cache_use_stale updating error timeout http_500 http_502 http_503 http_504;
        proxy_cache_background_update on; proxy_cache_lock on; proxy_cache_lock_timeout 5s;
        proxy_connect_timeout 2s; proxy_read_timeout 5s;"
NGINX_HTTP="proxy_cache_path $WORK/nginx-cache levels=1:2 keys_zone=pages:32m max_size=512m inactive=60m use_temp_path=off;
    upstream origin { server 127.0.0.1:$ORIGIN_PORT; keepalive 32; }" \
    start_nginx "$NGINX_PORT" "
        location /items/ { $proxy proxy_cache_valid 200 30s; }
        location /item/ { $proxy proxy_cache_valid 200 60s; }
        location / { return 404; }"

echo "users ${USERS:-200}, ${DURATION_S:-70} s, outage at ${OUTAGE_AT:-30} s for ${OUTAGE_FOR:-10} s, ${PRODUCTS:-2000} products, origin 40 ms"
curl -fs -X POST "http://127.0.0.1:$ORIGIN_PORT/__admin/reset" >/dev/null
gateway=$(SERVER_PID=$GATEWAY_PID $CLIENT_CPU python3 Benchmarks/outage.py gateway "http://127.0.0.1:$GATEWAY_PORT" "http://127.0.0.1:$ORIGIN_PORT")
echo "gateway $gateway"
[ "${SERVERS:-gateway nginx}" = gateway ] && exit 0
curl -fs -X POST "http://127.0.0.1:$ORIGIN_PORT/__admin/reset" >/dev/null
nginx=$(SERVER_PID=$(pgrep -P "$(cat "$WORK/nginx.pid")" | head -1) $CLIENT_CPU python3 Benchmarks/outage.py nginx "http://127.0.0.1:$NGINX_PORT" "http://127.0.0.1:$ORIGIN_PORT")
echo "nginx   $nginx"
python3 - "$gateway" "$nginx" <<'PY'
import json, sys
g, n = json.loads(sys.argv[1]), json.loads(sys.argv[2])
def ratio(key):
    return f"{g[key]} vs {n[key]} ({g[key] / n[key]:.2f})" if n[key] else f"{g[key]} vs {n[key]}"
print("origin requests per 1,000 client requests: overall", ratio("origin_per_1000"),
      "| during the outage", ratio("outage_origin_per_1000"), "| outside it", ratio("outside_origin_per_1000"))
print("p99 ms: every answer", ratio("p99_ms"), "| list pages", ratio("list_p99_ms"))
print("answers that waited for the origin (>= 40 ms): share", ratio("waited_share"), "| p50 ms", ratio("waited_p50_ms"),
      "| p90 ms", ratio("waited_p90_ms"), "| details alone: p50 ms", ratio("waited_detail_p50_ms"), "| p90 ms", ratio("waited_detail_p90_ms"))
print("server CPU seconds:", ratio("server_cpu_s"), "| origin image requests:", g["origin_image_requests"], "vs", n["origin_image_requests"])
print("5xx during the outage to pages answered before it:", g["outage_5xx_known_pages"], "vs", n["outage_5xx_known_pages"],
      "| any 5xx during it:", g["outage_5xx"], "vs", n["outage_5xx"], "| after it:", g["after_5xx"], "vs", n["after_5xx"])
PY
