#!/usr/bin/env bash
# Whether fetching ahead slows a client's miss (issue 27): a client's detail misses (every
# read a miss: --detail-ttl 0) through a gateway whose prefetch lane is idle, then saturated,
# alternating rounds, one run. The origin (the demo origin on its own) answers everything,
# API and images, 30 ms late; the gateway has --origin-max-connections 8 (so the lane runs at
# most 4 fetches at once). Saturated: each second a purge of everything (which forgets every
# placeholder and page), then list pages 1-5 of 25 items, each a miss that fetches its
# thumbnails ahead: about 375 jobs a second for a lane that runs about 130, while the loop
# serves only 6 requests a second for them; the lane's counts are printed, to show it was
# full (skipped_full > 0). Printed: misses per round, p50 and p99 (ms), the medians of each
# state and the ratio of the p99s (goal: saturated within 10% of idle).
#
#   Benchmarks/lane.sh                        # 5 rounds of 10 s per state
#   ROUNDS=3 SECONDS_PER_ROUND=20 Benchmarks/lane.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SECONDS_PER_ROUND=${SECONDS_PER_ROUND:-10}
built_here=${GATEWAY_BIN:-}
source Benchmarks/lib.sh
bench_setup
if [ -z "$built_here" ]; then swift build -c release --product demo-origin >&2; fi
DEMO_ORIGIN_BIN=${DEMO_ORIGIN_BIN:-$(dirname "$GATEWAY_BIN")/demo-origin}

O=18620
G=18621
A=18622
$SERVER_CPU "$DEMO_ORIGIN_BIN" --host 127.0.0.1 --port "$O" --log-level warning 2>"$WORK/origin.log" &
BENCH_PIDS+=($!)
wait_for "http://127.0.0.1:$O/items/1"
curl -fs -X PUT -H 'Content-Type: application/json' -d '{"latencyMs":30}' "http://127.0.0.1:$O/__admin/faults" >/dev/null
start_gateway --host 127.0.0.1 --port "$G" --threads 1 --log-level warning --cache-dir "$WORK/cache" --origin "http://127.0.0.1:$O" \
    --origin-max-connections 8 --detail-ttl 0 --stale-while-revalidate 0 --admin-port "$A" --admin-token bench-admin-token-0123
wait_for "http://127.0.0.1:$G/healthz"

: >"$WORK/idle.txt"
: >"$WORK/saturated.txt"
for round in $(seq "$ROUNDS"); do
    for state in idle saturated; do
        SAT_PID=""
        if [ "$state" = saturated ]; then
            $CLIENT_CPU python3 Benchmarks/lane.py saturate --port "$G" --admin "$A" --token bench-admin-token-0123 &
            SAT_PID=$!
            BENCH_PIDS+=("$SAT_PID")
            sleep 1
        fi
        line=$($CLIENT_CPU python3 Benchmarks/lane.py misses --port "$G" --seconds "$SECONDS_PER_ROUND" --connections 4)
        echo "$line" >>"$WORK/$state.txt"
        echo "round $round $state: misses p50 p99 = $line"
        if [ -n "$SAT_PID" ]; then kill "$SAT_PID"; wait "$SAT_PID" 2>/dev/null || true; sleep 1; fi
    done
done
curl -fs "http://127.0.0.1:$G/metrics" | grep -E '^gateway_prefetches_total' || true
idle=$(cut -d' ' -f3 "$WORK/idle.txt" | median)
saturated=$(cut -d' ' -f3 "$WORK/saturated.txt" | median)
echo "client misses, median of $ROUNDS rounds: idle p50 $(cut -d' ' -f2 "$WORK/idle.txt" | median) p99 $idle ms;" \
    "saturated p50 $(cut -d' ' -f2 "$WORK/saturated.txt" | median) p99 $saturated ms"
awk -v a="$saturated" -v b="$idle" 'BEGIN {printf "p99 saturated / idle: %.2f (goal: at most 1.10)\n", a / b}'
