#!/usr/bin/env bash
# Instructions per cached hit, counted by callgrind in the gateway's process: a count that does
# not depend on the machine's noise, for before/after comparisons of the hot path. For each
# build (this tree's release gateway, and BASELINE_BIN when given) and each protocol (HTTP/1.1
# and HTTP/2, in the clear and over TLS): a gateway with one loop under valgrind (a stripped
# copy: valgrind cannot read Swift's DWARF), a warm-up, `callgrind_control -z`, N requests for a
# cached detail with h2load, `callgrind_control -d`, and the instructions counted divided by N.
#   Benchmarks/instructions.sh                          N=20000
#   BASELINE_BIN=/tmp/gateway-before Benchmarks/instructions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20000}
command -v valgrind >/dev/null && command -v h2load >/dev/null || {
    apt-get install -y -q valgrind nghttp2-client >/dev/null
}
swift build -c release --product gateway >&2
swift build -c release --product demo-origin >&2
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
origin=
trap 'kill $origin 2>/dev/null; pkill -f "$work/gw-" 2>/dev/null; rm -rf "$work"' EXIT
"$bin/demo-origin" --port 18721 --log-level warning 2>/dev/null &
origin=$!
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost -days 1 \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
strip -o "$work/gw-now" "$bin/gateway"
builds=(now)
if [ -n "${BASELINE_BIN:-}" ]; then
    strip -o "$work/gw-baseline" "$BASELINE_BIN"
    builds+=(baseline)
fi

# One build, one protocol: prints instructions per request.
count() {
    local build=$1 mode=$2 port=18722 tls=() scheme=http h2args=(--h1 -c 10)
    case $mode in
    h1-tls | h2-tls) tls=(--tls-cert "$work/cert.pem" --tls-key "$work/key.pem"); scheme=https ;;
    esac
    case $mode in
    h2 | h2-tls) h2args=(-c 10 -m 10) ;;
    esac
    rm -f "$work"/callgrind.out.*
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out.%p" "$work/gw-$build" --host 127.0.0.1 --port $port \
        --threads 1 --origin http://127.0.0.1:18721 --log-level warning --detail-ttl 3600 "${tls[@]}" 2>"$work/valgrind.log" &
    local pid=$!
    for _ in $(seq 300); do curl -kfs -o /dev/null "$scheme://127.0.0.1:$port/healthz" && break; sleep 0.2; done
    h2load "${h2args[@]}" -n 2000 "$scheme://127.0.0.1:$port/v1/products/1" >/dev/null
    callgrind_control -z $pid >/dev/null 2>&1
    h2load "${h2args[@]}" -n "$N" "$scheme://127.0.0.1:$port/v1/products/1" >"$work/h2load.log"
    grep -q " 0 failed, 0 errored" "$work/h2load.log" || grep "requests:" "$work/h2load.log" >&2
    callgrind_control -d $pid >/dev/null 2>&1
    kill $pid
    wait $pid 2>/dev/null || true
    local total=0 file
    # The dump asked for after -z holds the counted interval (the one at exit holds the
    # shutdown): the largest "summary:" of the dumps.
    for file in "$work"/callgrind.out.*; do
        local value
        value=$(grep -m1 '^summary:' "$file" | awk '{print $2}')
        [ -n "$value" ] && [ "$value" -gt "$total" ] && total=$value
    done
    echo $((total / N))
}

printf '%-22s' "cached detail"
for build in "${builds[@]}"; do printf '%12s' "$build"; done
echo
for mode in h1 h1-tls h2 h2-tls; do
    printf '%-22s' "$mode"
    for build in "${builds[@]}"; do printf '%12s' "$(count "$build" "$mode")"; done
    echo
done
