#!/usr/bin/env bash
# HTTP/2 cache hits on ONE event loop beside nginx on ONE worker with http2 on (tuned as in
# hits.sh: sendfile, open_file_cache, access log off), serving the very bytes the gateway
# stored, fetched from the gateway first. Gateway and nginx rounds alternate, in one run:
#   - h2c (prior knowledge) and h2 over TLS (ALPN), with h2load -c CONNECTIONS -m STREAMS:
#     a cached list page (gzip), a cached detail, a cached image (memory tier);
#   - HTTP/1.1 over TLS with wrk, the same three, so the TLS path of HTTP/1.1 is compared too.
# p99 for h2load comes from its --log-file (per-request times), for wrk from --latency.
#
#   Benchmarks/h2.sh                         # 5 rounds of 4 s per scenario
#   ROUNDS=3 DURATION=5 STREAMS=10 Benchmarks/h2.sh
#   BASELINE_BIN=path Benchmarks/h2.sh       # and an earlier build of the gateway, its rounds
#                                            # alternating with the others' (before and after)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-4}
STREAMS=${STREAMS:-10}
source Benchmarks/lib.sh
bench_setup
need_h2load

G=18594
GT=18595
N=18596
NT=18597
CACHE="$WORK/cache"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" \
    -days 2 -subj /CN=bench -addext subjectAltName=IP:127.0.0.1 2>/dev/null

start_gateway --host 127.0.0.1 --port "$G" --threads 1 --log-level warning --cache-dir "$CACHE" --list-ttl 3600 --detail-ttl 3600
PLAIN_PID=$GATEWAY_PID
wait_for "http://127.0.0.1:$G/healthz"
fetch_stored "$G"
# The TLS gateway shares the cache directory (so the image key and the image are the same) and
# fills its own page cache.
start_gateway --host 127.0.0.1 --port "$GT" --threads 1 --log-level warning --cache-dir "$CACHE" --list-ttl 3600 --detail-ttl 3600 \
    --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem"
TLS_PID=$GATEWAY_PID
for _ in $(seq 100); do curl -kfs -o /dev/null "https://127.0.0.1:$GT/healthz" && break; sleep 0.1; done
curl -kfs -o /dev/null -H 'Accept-Encoding: gzip' "https://127.0.0.1:$GT/v1/products?page=1"
curl -kfs -o /dev/null "https://127.0.0.1:$GT/v1/products/3"
curl -kfs -o /dev/null "https://127.0.0.1:$GT$IMAGE"

if [ -n "${BASELINE_BIN:-}" ]; then
    B=18598
    BT=18599
    GATEWAY_BIN=$BASELINE_BIN start_gateway --host 127.0.0.1 --port "$B" --threads 1 --log-level warning --cache-dir "$CACHE" \
        --list-ttl 3600 --detail-ttl 3600
    wait_for "http://127.0.0.1:$B/healthz"
    GATEWAY_BIN=$BASELINE_BIN start_gateway --host 127.0.0.1 --port "$BT" --threads 1 --log-level warning --cache-dir "$CACHE" \
        --list-ttl 3600 --detail-ttl 3600 --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem"
    for _ in $(seq 100); do curl -kfs -o /dev/null "https://127.0.0.1:$BT/healthz" && break; sleep 0.1; done
    for base in "http://127.0.0.1:$B" "https://127.0.0.1:$BT"; do
        curl -kfs -o /dev/null -H 'Accept-Encoding: gzip' "$base/v1/products?page=1"
        curl -kfs -o /dev/null "$base/v1/products/3"
        curl -kfs -o /dev/null "$base$IMAGE"
    done
    export BASELINE_SED="s/:$G\//:$B\//; s/:$GT\//:$BT\//"
fi

LOCATIONS="
        location = /list { default_type application/json; add_header Content-Encoding gzip; add_header Vary 'Accept-Encoding, Accept-Language'; alias $WORK/list.json.gz; }
        location = /detail { default_type application/json; add_header Vary 'Accept-Encoding, Accept-Language'; alias $WORK/detail.json; }
        location = /image { default_type image/png; add_header Cache-Control 'public, max-age=31536000, immutable'; alias $WORK/image.png; }"
# nginx with http2, one worker each, for h2c (nginx's cleartext http2 port speaks only
# HTTP/2) and for TLS, each in its own prefix.
NGINX_PREFIX="$WORK/h2c" NGINX_LISTEN_FLAGS=http2 WAIT_FLAGS=--http2-prior-knowledge start_nginx "$N" "$LOCATIONS"
# (A cleartext request to the TLS port gets nginx's 400, which is enough to know it listens.)
NGINX_PREFIX="$WORK/h2tls" NGINX_LISTEN_FLAGS="ssl http2" start_nginx "$NT" "
        ssl_certificate $WORK/cert.pem;
        ssl_certificate_key $WORK/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:SSL:10m;
        $LOCATIONS"

echo "h2load -t1 -c$CONNECTIONS -m$STREAMS -D$DURATION, wrk -t1 -c$CONNECTIONS -d${DURATION}s; $ROUNDS rounds"

# As compare, with h2load (curl checks the h2c server with prior knowledge).
compare_h2() {
    local label=$1 url_a=$2 url_b=$3 check=""
    shift 3
    [[ $url_a == http://* ]] && check=--http2-prior-knowledge
    MEASURE=measure_h2 CHECK_FLAGS=$check compare_named "$label" gateway "$url_a" nginx "$url_b" "$@"
}

DURATION_WRK="${DURATION}s"
compare_h2 "h2c: cached list page, gzip [c=$CONNECTIONS m=$STREAMS]" "http://127.0.0.1:$G/v1/products?page=1" "http://127.0.0.1:$N/list" -H 'accept-encoding: gzip'
compare_h2 "h2c: cached detail [c=$CONNECTIONS m=$STREAMS]" "http://127.0.0.1:$G/v1/products/3" "http://127.0.0.1:$N/detail"
compare_h2 "h2c: cached image, memory tier [c=$CONNECTIONS m=$STREAMS]" "http://127.0.0.1:$G$IMAGE" "http://127.0.0.1:$N/image"
compare_h2 "h2 over TLS: cached list page, gzip [c=$CONNECTIONS m=$STREAMS]" "https://127.0.0.1:$GT/v1/products?page=1" "https://127.0.0.1:$NT/list" -H 'accept-encoding: gzip'
compare_h2 "h2 over TLS: cached detail [c=$CONNECTIONS m=$STREAMS]" "https://127.0.0.1:$GT/v1/products/3" "https://127.0.0.1:$NT/detail"
compare_h2 "h2 over TLS: cached image, memory tier [c=$CONNECTIONS m=$STREAMS]" "https://127.0.0.1:$GT$IMAGE" "https://127.0.0.1:$NT/image"
DURATION=$DURATION_WRK
compare "HTTP/1.1 over TLS: cached list page, gzip [c=$CONNECTIONS]" "https://127.0.0.1:$GT/v1/products?page=1" "https://127.0.0.1:$NT/list" -H 'Accept-Encoding: gzip'
compare "HTTP/1.1 over TLS: cached detail [c=$CONNECTIONS]" "https://127.0.0.1:$GT/v1/products/3" "https://127.0.0.1:$NT/detail"
compare "HTTP/1.1 over TLS: cached image, memory tier [c=$CONNECTIONS]" "https://127.0.0.1:$GT$IMAGE" "https://127.0.0.1:$NT/image"
kill "$PLAIN_PID" "$TLS_PID" 2>/dev/null || true
