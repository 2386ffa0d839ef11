#!/usr/bin/env bash
# How long a shopping app's screens take through the gateway over an EMULATED MOBILE LINK,
# over HTTP/2 and over HTTP/1.1 (shared/docs/mobile-link.md). This kernel has no netem, so
# link.py emulates the link in user space: a TCP proxy on 127.0.0.1 between the client and
# the gateway that delays each direction by half the RTT, sends every connection's packets
# (MSS 1448 bytes, plus 52 bytes of TCP/IP headers in their air time) through ONE downlink
# and ONE uplink queue at the link's rates, holds a connection's first bytes one RTT (the TCP
# handshake) and runs slow start per connection and direction (initial window 10 segments,
# grown by what is acknowledged one RTT after it left the queue; no loss, no ssthresh).
# Profiles: 4G RTT 80 ms, 12/4 Mbit/s; 3G RTT 250 ms, 1.6/0.75 Mbit/s. model.py holds the
# model; its virtual-time run gives each screen's FLOOR: the same bytes on one connection
# with a client and server that take no time. The emulator is checked first against nginx
# (TLS 1.3): a small GET on a fresh connection (about 3 RTT), 1 MB (air time plus round
# trips), two 1 MB GETs at once (they share the link); the figures are printed.
#
# Origin: the demo origin on its own, its items on list pages 1 and 2 given 1000x1000 JPEG
# photos of about 217 KB and the detail item 3000x2000 ones of about 1.3 MB (images.py:
# Pillow-made, uploaded with v1 PATCH /item/{id}; the origin serves them at its own image
# URLs). Gateway: ONE loop, TLS (a throwaway P-256 certificate), on loopback to the origin
# without emulation; gateway, origin and nginx on core 0, emulator and client on core 1.
# Client (client.py, Python with h2 from PyPI in .venv-screen): like URLSession: TLS 1.3,
# Accept-Language ko-KR, Accept-Encoding gzip, deflate, br, images with
# Accept image/webp,image/*;q=0.8; HTTP/2: one connection by ALPN h2, every request of a wave
# multiplexed, 4 MiB stream and 10 MiB connection windows; HTTP/1.1: at most 6 keep-alive
# connections, requests queued. One app session, screens back to back on its connections:
#   1. first screen: GET /v1/products?page=1, then (once it is in) its first 12 thumbnails at w=320;
#   2. rest of page 1: its other 8 thumbnails at w=320;
#   3. page 2: GET /v1/products?page=2, then its 20 thumbnails at w=320;
#   4. detail: GET /v1/products/43 (an item off pages 1-2), then its 3 images at w=960.
# A screen's time runs from its first request to the last byte of its last answer (screen 1
# includes the connections' setup). Per profile, per run, per protocol: a fresh gateway with
# an empty cache directory, one session (cold), then a new session with new connections
# (warm). Printed: each session as it ends, then medians per screen (ms, KB down through the
# link counted as TLS bytes, floor ms) and of when its first image was complete, whether the
# goal holds (first screen over 4G, warm, HTTP/2 at most 600 ms; no screen slower over HTTP/2
# than over HTTP/1.1), and when each answer of the 4G warm first screen arrived.
#
#   Benchmarks/screen/run.sh                  # RUNS=3, 4G and 3G: about 3 minutes
#   RUNS=5 PROFILES=4G Benchmarks/screen/run.sh
#   GATEWAY_BIN=path Benchmarks/screen/run.sh # another build (demo-origin beside it, or DEMO_ORIGIN_BIN)
#   SAVE=file Benchmarks/screen/run.sh        # also keep every session's JSON line in file
#   GATEWAY_LOG_LEVEL=info LOGS=file Benchmarks/screen/run.sh  # keep the gateways' logs (access lines)
#   INCLUDE=placeholders Benchmarks/screen/run.sh   # lists and the detail asked with include=placeholders:
#                                             # "laid out" (the list answer in) is then the moment the screen has its layout
#   ORIGIN_LATENCY_MS=30 Benchmarks/screen/run.sh    # the origin answers everything (API and images) that much later
#   GATEWAY_FLAGS="--placeholder-wait 0" Benchmarks/screen/run.sh   # more gateway flags
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
PROFILES=${PROFILES:-4G 3G}
DETAIL_ID=43
built_here=${GATEWAY_BIN:-}
source Benchmarks/lib.sh
bench_setup
start=$(date +%s)
if [ -z "$built_here" ]; then
    swift build -c release --product demo-origin >&2
fi
DEMO_ORIGIN_BIN=${DEMO_ORIGIN_BIN:-$(dirname "$GATEWAY_BIN")/demo-origin}
[ -x "$DEMO_ORIGIN_BIN" ] || { echo "no demo-origin at $DEMO_ORIGIN_BIN: set DEMO_ORIGIN_BIN" >&2; exit 1; }

# The client's Python: h2 and Pillow in their own environment.
VENV=.venv-screen
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import h2, PIL' 2>/dev/null \
    || "$VENV/bin/pip" install -q --disable-pip-version-check 'h2>=4.1,<5' 'pillow>=10' >&2
PY="$VENV/bin/python"
HERE=Benchmarks/screen

O=18610   # demo origin (plain HTTP, loopback)
G=18611   # gateway (TLS)
N=18612   # nginx (TLS), for the emulator's checks
LG=18613  # emulated link to the gateway
LN=18614  # emulated link to nginx

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" \
    -days 2 -subj /CN=bench -addext subjectAltName=IP:127.0.0.1 2>/dev/null

$SERVER_CPU "$DEMO_ORIGIN_BIN" --host 127.0.0.1 --port "$O" --log-level warning 2>"$WORK/origin.log" &
BENCH_PIDS+=($!)
wait_for "http://127.0.0.1:$O/items/1"
$CLIENT_CPU "$PY" "$HERE/images.py" --origin "http://127.0.0.1:$O" --dir "$WORK/images" --detail-id "$DETAIL_ID"
if [ "${ORIGIN_LATENCY_MS:-0}" != 0 ]; then
    curl -fs -X PUT -H 'Content-Type: application/json' -d "{\"latencyMs\":$ORIGIN_LATENCY_MS}" "http://127.0.0.1:$O/__admin/faults" >/dev/null
fi

head -c 1024 /dev/urandom >"$WORK/small"
head -c 1000000 /dev/urandom >"$WORK/1m"
NGINX_PREFIX="$WORK/nginx" NGINX_LISTEN_FLAGS=ssl start_nginx "$N" "
        ssl_certificate $WORK/cert.pem;
        ssl_certificate_key $WORK/key.pem;
        ssl_protocols TLSv1.3;
        location = /small { default_type application/octet-stream; alias $WORK/small; }
        location = /1m { default_type application/octet-stream; alias $WORK/1m; }"

# Starts the link emulator for profile $1; sets LINK_PID.
start_link() {
    $CLIENT_CPU "$PY" "$HERE/link.py" --profile "$1" --map "$LG:127.0.0.1:$G" --map "$LN:127.0.0.1:$N" >"$WORK/link.out" 2>"$WORK/link.log" &
    LINK_PID=$!
    BENCH_PIDS+=("$LINK_PID")
    for _ in $(seq 100); do grep -q ready "$WORK/link.out" 2>/dev/null && return; sleep 0.1; done
    echo "the link emulator did not start" >&2
    cat "$WORK/link.log" >&2
    exit 1
}

stop() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# One run: a fresh gateway (empty cache directory), a cold session and a warm one.
# $1 profile, $2 protocol (h2 or h1), $3 run number.
one_run() {
    local cache="$WORK/cache-$1-$2-$3"
    start_gateway --host 127.0.0.1 --port "$G" --threads 1 --log-level "${GATEWAY_LOG_LEVEL:-warning}" --cache-dir "$cache" \
        --origin "http://127.0.0.1:$O" --list-ttl 3600 --detail-ttl 3600 \
        --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" ${GATEWAY_FLAGS:-}
    for _ in $(seq 100); do curl -kfs -o /dev/null "https://127.0.0.1:$G/healthz" && break; sleep 0.1; done
    for state in cold warm; do
        if [ "$state" = warm ] && [ -n "${INCLUDE:-}" ]; then
            # A page answered while placeholders were still being computed is fresh for 5 s:
            # past that, one read of each list page and of the detail stores complete ones,
            # which the warm session then reads (as any later user would).
            sleep 5.5
            for path in "v1/products?page=1&include=$INCLUDE" "v1/products?page=2&include=$INCLUDE" "v1/products/$DETAIL_ID?include=$INCLUDE"; do
                curl -kfs -o /dev/null -H 'Accept-Language: ko-KR' -H 'Accept-Encoding: gzip' "https://127.0.0.1:$G/$path"
            done
        fi
        $CLIENT_CPU "$PY" "$HERE/client.py" session --port "$LG" --profile "$1" --proto "$2" --cache "$state" \
            --run "$3" --ca "$WORK/cert.pem" --detail-id "$DETAIL_ID" --include "${INCLUDE:-}" >"$WORK/session.json" \
            || { cat "$WORK/gateway.log" >&2; exit 1; }
        cat "$WORK/session.json" >>"$WORK/results.jsonl"
        echo "  $("$PY" "$HERE/report.py" line <"$WORK/session.json")"
    done
    stop "$GATEWAY_PID"
    { echo "== $1 $2 run $3"; cat "$WORK/gateway.log"; } >>"$WORK/gateways.log"
    rm -rf "$cache"
}

echo "screens over an emulated link: profiles $PROFILES, $RUNS runs, gateway $GATEWAY_BIN" \
    "${INCLUDE:+, include=$INCLUDE}${ORIGIN_LATENCY_MS:+, origin latency ${ORIGIN_LATENCY_MS} ms}${GATEWAY_FLAGS:+, flags $GATEWAY_FLAGS}"
: >"$WORK/results.jsonl"
for profile in $PROFILES; do
    start_link "$profile"
    $CLIENT_CPU "$PY" "$HERE/client.py" check --port "$LN" --profile "$profile" --ca "$WORK/cert.pem"
    for run in $(seq "$RUNS"); do
        # Which protocol goes first alternates from run to run.
        protocols="h2 h1"
        [ $((run % 2)) -eq 0 ] && protocols="h1 h2"
        for proto in $protocols; do
            one_run "$profile" "$proto" "$run"
        done
    done
    stop "$LINK_PID"
    grep '^link' "$WORK/link.out" || true
done

"$PY" "$HERE/report.py" table "$WORK/results.jsonl"
[ -n "${SAVE:-}" ] && cp "$WORK/results.jsonl" "$SAVE"
[ -n "${LOGS:-}" ] && cp "$WORK/gateways.log" "$LOGS"
echo
echo "took $(($(date +%s) - start)) s"
