#!/usr/bin/env bash
# Noise-free costs of a cached answer: system calls and heap allocations per request, on a
# release gateway with one loop in front of its demo origin. For each URL: a warm-up, then
# N keep-alive requests from one curl (one connection), counted with `strace -c` on every
# thread of the gateway and with an LD_PRELOAD allocation counter (Benchmarks/malloc-count.c).
# Rows: HTTP/1.1 in the clear, HTTP/2 over h2c (h2load, 10 streams at once), then both over
# TLS (a certificate made for the run), then the image disk tier.
#   Benchmarks/counts.sh                 N=5000, --log-level warning
#   LOG_LEVEL=info Benchmarks/counts.sh  with the access log on
#   GATEWAY_BIN=path Benchmarks/counts.sh another build of the gateway
#   EXTRA="--rate-limit-reads 1000000/s --rate-limit-images 1000000/s" Benchmarks/counts.sh
#                                        the same with more gateway flags (rate limits on)
#   AUTH_HEADER="Authorization: Bearer …" EXTRA="--auth-…" Benchmarks/counts.sh
#                                        every request with that header (Benchmarks/auth.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-5000}
LOG_LEVEL=${LOG_LEVEL:-warning}
scripts/setup
command -v strace >/dev/null || apt-get install -y -qq strace >/dev/null
command -v curl >/dev/null || apt-get install -y -qq curl >/dev/null
# GATEWAY_BIN=path measures another build (an earlier commit's, for a before/after).
if [ -z "${GATEWAY_BIN:-}" ]; then
    swift build -c release --product gateway >&2
    GATEWAY_BIN="$(swift build -c release --show-bin-path)/gateway"
fi
bin=$GATEWAY_BIN
work=$(mktemp -d)
trap 'kill $gateway 2>/dev/null || true; rm -rf "$work"' EXIT
cc -O2 -shared -fPIC -o "$work/malloc-count.so" Benchmarks/malloc-count.c
port=$((20000 + RANDOM % 20000))
# shellcheck disable=SC2086
LD_PRELOAD="$work/malloc-count.so" "$bin" --port "$port" --threads 1 --log-level "$LOG_LEVEL" \
    --cache-dir "$work/cache" --list-ttl 600 --detail-ttl 600 ${EXTRA:-} 2>"$work/gateway.log" &
gateway=$!
for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done

allocations() {
    kill -USR2 "$gateway"
    sleep 0.2
    grep -a '^allocations: ' "$work/gateway.log" | tail -1 | awk '{print $2}'
}

# Waits until the gateway's allocation count stops moving (background work a warm-up began,
# such as the prefetch a first list page starts, is over), so it is not counted as the hits'.
settle() {
    local before after
    before=$(allocations)
    for _ in $(seq 50); do
        sleep 0.3
        after=$(allocations)
        [ "$after" = "$before" ] && return
        before=$after
    done
}

# $1 label, then the command that sends the N requests: system calls (strace -c on every
# thread) and allocations (the LD_PRELOAD counter) per request while it runs.
measured() {
    local label=$1
    shift
    local before after
    before=$(allocations)
    strace -c -f -p "$gateway" -o "$work/strace.txt" &
    local tracer=$!
    sleep 0.5
    "$@"
    sleep 0.3
    kill -INT $tracer
    wait $tracer 2>/dev/null || true
    after=$(allocations)
    local calls
    calls=$(awk '$NF=="total" {print ($1 ~ /^100/ ? $4 : $(NF-1))}' "$work/strace.txt")
    local detail
    detail=$(awk -v n="$N" 'NR>2 && $NF!="total" && $1 ~ /^[0-9.]+$/ && NF>=5 {printf "%s %.2f ", $NF, $4/n}' "$work/strace.txt")
    awk -v l="$label" -v n="$N" -v c="$calls" -v a=$((after - before)) -v d="$detail" \
        'BEGIN {printf "%-34s syscalls/req %.2f  allocations/req %.2f   (%s)\n", l, c/n, a/n, d}'
}

# $1 label, $2 path, then curl header arguments: N keep-alive HTTP/1.1 requests from one curl.
count() {
    local label=$1 path=$2
    shift 2
    local url="$BASE$path"
    [ -n "${AUTH_HEADER:-}" ] && set -- "$@" -H "$AUTH_HEADER"
    for _ in 1 2 3; do curl -s -o /dev/null "$@" "$url"; done
    settle
    : >"$work/urls"
    for _ in $(seq "$N"); do echo "url = \"$url\"" >>"$work/urls"; echo "output = /dev/null" >>"$work/urls"; done
    measured "$label" curl -s "$@" -K "$work/urls"
}

# h2load over h2c, one connection, 10 streams at once; every answer must be 2xx or 304.
h2_run() {
    h2load -n "$1" -c 1 -m 10 "${@:2}" >"$work/h2.out" 2>&1
    grep -q "^status codes: $1 2xx\|^status codes: 0 2xx, $1 3xx" "$work/h2.out" || { grep "^status codes" "$work/h2.out" >&2; exit 1; }
}

# $1 label, $2 path, then h2load header arguments: the same N requests over HTTP/2.
count_h2() {
    local label=$1 path=$2
    shift 2
    local url="$BASE$path"
    [ -n "${AUTH_HEADER:-}" ] && set -- "$@" -H "$AUTH_HEADER"
    h2_run 30 "$@" "$url"
    settle
    measured "$label" h2_run "$N" "$@" "$url"
}

AUTH_ARGS=()
[ -n "${AUTH_HEADER:-}" ] && AUTH_ARGS=(-H "$AUTH_HEADER")
BASE="http://127.0.0.1:$port"
echo "release gateway, 1 loop, --log-level $LOG_LEVEL ${EXTRA:-}${AUTH_HEADER:+ (with the Authorization header)}, $N keep-alive requests per row"
count "/healthz" /healthz
count "cached list page, gzip" "/v1/products?page=1" -H "Accept-Encoding: gzip"
count "cached list page, identity" "/v1/products?page=2"
count "cached detail, gzip" "/v1/products/3" -H "Accept-Encoding: gzip"
count "cached detail, 304" "/v1/products/3" -H "If-None-Match: $(curl -s -D - -o /dev/null "${AUTH_ARGS[@]}" "http://127.0.0.1:$port/v1/products/3" | awk -F': ' 'tolower($1)=="etag" {print $2}' | tr -d '\r')"
image=$(curl -s "${AUTH_ARGS[@]}" "http://127.0.0.1:$port/v1/products/1" | grep -o '/v1/images/[^"]*' | head -1)
count "cached image, memory tier" "$image"
command -v h2load >/dev/null || apt-get install -y -qq nghttp2-client >/dev/null
echo "the same over HTTP/2 (h2c; h2load -n $N -c 1 -m 10: one connection, 10 streams at once)"
count_h2 "/healthz" /healthz
count_h2 "cached list page, gzip" "/v1/products?page=1" -H "accept-encoding: gzip"
count_h2 "cached detail, gzip" "/v1/products/3" -H "accept-encoding: gzip"
count_h2 "cached detail, 304" "/v1/products/3" -H "if-none-match: $(curl -s -D - -o /dev/null "${AUTH_ARGS[@]}" "http://127.0.0.1:$port/v1/products/3" | awk -F': ' 'tolower($1)=="etag" {print $2}' | tr -d '\r')"
count_h2 "cached image, memory tier" "$image"
kill "$gateway"
wait "$gateway" 2>/dev/null || true
# Over TLS (a made-up certificate; the same cache directory, so the image URL holds): HTTP/1.1
# from one curl, then HTTP/2 (ALPN h2) from h2load.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
    -days 2 -subj /CN=counts -addext subjectAltName=IP:127.0.0.1 2>/dev/null
# shellcheck disable=SC2086
LD_PRELOAD="$work/malloc-count.so" "$bin" --port "$port" --threads 1 --log-level "$LOG_LEVEL" \
    --cache-dir "$work/cache" --list-ttl 600 --detail-ttl 600 --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" ${EXTRA:-} \
    2>>"$work/gateway.log" &
gateway=$!
for _ in $(seq 100); do curl -kfs -o /dev/null "https://127.0.0.1:$port/healthz" && break; sleep 0.1; done
BASE="https://127.0.0.1:$port"
echo "over TLS: HTTP/1.1 (one curl, one connection), then HTTP/2 (h2load -c 1 -m 10)"
count "TLS HTTP/1.1: cached list page, gzip" "/v1/products?page=1" -k --http1.1 -H "Accept-Encoding: gzip"
count "TLS HTTP/1.1: cached detail, gzip" "/v1/products/3" -k --http1.1 -H "Accept-Encoding: gzip"
count "TLS HTTP/1.1: cached image, memory tier" "$image" -k --http1.1
count_h2 "TLS HTTP/2: cached list page, gzip" "/v1/products?page=1" -H "accept-encoding: gzip"
count_h2 "TLS HTTP/2: cached detail, gzip" "/v1/products/3" -H "accept-encoding: gzip"
count_h2 "TLS HTTP/2: cached image, memory tier" "$image"
kill "$gateway"
wait "$gateway" 2>/dev/null || true
# The disk tier: memory tier off, the image already on disk (cached above).
# shellcheck disable=SC2086
LD_PRELOAD="$work/malloc-count.so" "$bin" --port "$port" --threads 1 --log-level "$LOG_LEVEL" \
    --cache-dir "$work/cache" --image-memory-bytes 0 ${EXTRA:-} 2>>"$work/gateway.log" &
gateway=$!
for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
BASE="http://127.0.0.1:$port"
count "cached image, disk tier (sendfile)" "$image"
