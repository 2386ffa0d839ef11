#!/usr/bin/env bash
# The fault soak: mixed load (list pages, details, images, conditional requests, creates with
# and without Idempotency-Key, updates, deletes, slow clients) through a release gateway in
# front of the demo origin, whose faults change every minute (calm, 20% errors, 10% dropped
# connections, 300 ms latency, 800 ms latency, down), for DURATION seconds (default 1800). The
# gateway's --origin-timeout is ORIGIN_TIMEOUT seconds (default 0.5): past it, a write's
# outcome is unknown to the gateway while the late origin still carries it out. Reports requests by
# status, the gateway's memory and descriptors over time, and every write accounted for; exits
# 1 when a create is unaccounted for, a keyed create reached the origin twice, or the gateway
# died.
#   Benchmarks/soak.sh                  30 minutes
#   DURATION=300 Benchmarks/soak.sh     5 minutes
#   DURATION=120 PHASE_SECONDS=15 Benchmarks/soak.sh   a quick check of every fault setting
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-1800}
ORIGIN_TIMEOUT=${ORIGIN_TIMEOUT:-0.5}
scripts/setup
swift build -c release --product gateway --product demo-origin >&2
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
trap 'kill $gateway $origin 2>/dev/null; rm -rf "$work"' EXIT
"$bin/demo-origin" --port 18591 --log-level warning 2>"$work/origin.log" &
origin=$!
"$bin/gateway" --host 127.0.0.1 --port 18590 --threads 2 --origin http://127.0.0.1:18591 --origin-timeout "$ORIGIN_TIMEOUT" --log-level warning \
    --cache-dir "$work/cache" --page-cache-bytes 16777216 --image-memory-bytes 16777216 2>"$work/gateway.log" &
gateway=$!
for _ in $(seq 100); do curl -fs -o /dev/null http://127.0.0.1:18590/healthz && break; sleep 0.1; done
echo "soak: $DURATION s, origin timeout $ORIGIN_TIMEOUT s, gateway pid $gateway, $(date -u +%Y-%m-%dT%H:%MZ)"
status=0
python3 Benchmarks/soak.py http://127.0.0.1:18590 http://127.0.0.1:18591 "$gateway" "$DURATION" || status=1
if ! kill -0 "$gateway" 2>/dev/null; then echo "soak: the gateway died"; tail -20 "$work/gateway.log"; status=1; fi
echo "soak: gateway log lines (warnings and up): $(wc -l <"$work/gateway.log")"
exit $status
