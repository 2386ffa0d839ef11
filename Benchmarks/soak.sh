#!/usr/bin/env bash
# The fault soak: mixed load (list pages, details, images, conditional requests, creates with
# and without Idempotency-Key, updates, deletes, slow clients) through a release gateway in
# front of the demo origin, whose faults change every minute (calm, 20% errors, 10% dropped
# connections, 300 ms latency, 800 ms latency, down), for DURATION seconds (default 1800). The
# gateway's --origin-timeout is ORIGIN_TIMEOUT seconds (default 0.5): past it, a write's
# outcome is unknown to the gateway while the late origin still carries it out. Reports requests by
# status, the gateway's memory and descriptors over time, and every write accounted for; exits
# 1 when a create is unaccounted for, a keyed create reached the origin twice, or a gateway
# died. A second gateway in front of the same origin serves TLS, and part of the load reaches it
# over HTTP/2 as phones send it (Benchmarks/soak_h2.py, with h2 from PyPI in .venv-soak):
# multiplexed readers, a writer, clients that never read their answers and clients that reset
# streams mid-answer. H2=0 leaves it out.
#   Benchmarks/soak.sh                  30 minutes
#   DURATION=300 Benchmarks/soak.sh     5 minutes
#   DURATION=120 PHASE_SECONDS=15 Benchmarks/soak.sh   a quick check of every fault setting
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-1800}
ORIGIN_TIMEOUT=${ORIGIN_TIMEOUT:-0.5}
H2=${H2:-1}
scripts/setup
# One product per build: SwiftPM builds only the last --product it is given.
swift build -c release --product gateway >&2
swift build -c release --product demo-origin >&2
bin=$(swift build -c release --show-bin-path)
PY=python3
if [ "$H2" = 1 ]; then
    VENV=.venv-soak
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/python" -c 'import h2' 2>/dev/null || "$VENV/bin/pip" install -q --disable-pip-version-check 'h2>=4.1,<5' >&2
    PY=$VENV/bin/python
fi
work=$(mktemp -d)
gateway2=
trap 'kill $gateway $gateway2 $origin 2>/dev/null; rm -rf "$work"' EXIT
"$bin/demo-origin" --port 18591 --log-level warning 2>"$work/origin.log" &
origin=$!
"$bin/gateway" --host 127.0.0.1 --port 18590 --threads 2 --origin http://127.0.0.1:18591 --origin-timeout "$ORIGIN_TIMEOUT" --log-level warning \
    --cache-dir "$work/cache" --page-cache-bytes 16777216 --image-memory-bytes 16777216 2>"$work/gateway.log" &
gateway=$!
h2_args=()
if [ "$H2" = 1 ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost -days 2 \
        -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
    "$bin/gateway" --host 127.0.0.1 --port 18592 --threads 2 --origin http://127.0.0.1:18591 --origin-timeout "$ORIGIN_TIMEOUT" \
        --log-level warning --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" \
        --cache-dir "$work/cache2" --page-cache-bytes 16777216 --image-memory-bytes 16777216 2>"$work/gateway2.log" &
    gateway2=$!
    for _ in $(seq 100); do curl -kfs -o /dev/null https://127.0.0.1:18592/healthz && break; sleep 0.1; done
    h2_args=(https://127.0.0.1:18592 "$gateway2")
fi
for _ in $(seq 100); do curl -fs -o /dev/null http://127.0.0.1:18590/healthz && break; sleep 0.1; done
echo "soak: $DURATION s, origin timeout $ORIGIN_TIMEOUT s, gateway pid $gateway${gateway2:+, HTTP/2 (TLS) gateway pid $gateway2}, $(date -u +%Y-%m-%dT%H:%MZ)"
status=0
PYTHONPATH=Benchmarks "$PY" Benchmarks/soak.py http://127.0.0.1:18590 http://127.0.0.1:18591 "$gateway" "$DURATION" "${h2_args[@]}" || status=1
for pid in $gateway $gateway2; do
    if ! kill -0 "$pid" 2>/dev/null; then echo "soak: gateway $pid died"; tail -20 "$work"/gateway*.log; status=1; fi
done
echo "soak: gateway log lines (warnings and up): $(wc -l <"$work/gateway.log")${gateway2:+; the HTTP/2 gateway: $(wc -l <"$work/gateway2.log")}"
for log in "$work"/gateway*.log; do
    echo "soak: the first lines of $(basename "$log"):"
    head -20 "$log" | cut -c1-400
done
exit $status
