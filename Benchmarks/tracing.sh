#!/usr/bin/env bash
# What tracing costs a cached hit (issue 42): three release gateways, each on ONE loop in front
# of its own demo origin, their rounds alternating in one run: tracing off, tracing on with 1%
# of new traces sampled (traceidratio 0.01), and with every request sampled (always_on). The
# traced ones export to nginx standing in for a collector (`return 200` on /v1/traces: the
# collector's cost is not the gateway's). A cached detail over HTTP/1.1 (wrk -c CONNECTIONS)
# and over h2c (h2load -c CONNECTIONS -m STREAMS); medians, p99, and each ratio to tracing off.
# Goal: at 100%, at least 0.9 times the throughput with tracing off; at 1%, within noise.
#
#   Benchmarks/tracing.sh                 # 5 rounds of 4 s per scenario
#   ROUNDS=3 Benchmarks/tracing.sh
# Allocations per hit: Benchmarks/counts.sh with EXTRA="--tracing-endpoint … --tracing-sampler …".
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-4}
STREAMS=${STREAMS:-10}
source Benchmarks/lib.sh
bench_setup
need_h2load

OFF=18694
SOME=18695
ALL=18696
SINK=18697
start_nginx "$SINK" "location = /v1/traces { return 200; }"
common=(--host 127.0.0.1 --threads 1 --log-level warning --list-ttl 3600 --detail-ttl 3600)
endpoint="http://127.0.0.1:$SINK/v1/traces"
start_gateway "${common[@]}" --port "$OFF" --cache-dir "$WORK/off"
start_gateway "${common[@]}" --port "$SOME" --cache-dir "$WORK/some" --tracing-endpoint "$endpoint" \
    --tracing-sampler traceidratio --tracing-sampler-arg 0.01
start_gateway "${common[@]}" --port "$ALL" --cache-dir "$WORK/all" --tracing-endpoint "$endpoint" --tracing-sampler always_on
for port in $OFF $SOME $ALL; do
    wait_for "http://127.0.0.1:$port/healthz"
    curl -fs -o /dev/null "http://127.0.0.1:$port/v1/products/3"
done
echo "wrk -t1 -c$CONNECTIONS -d${DURATION}s, h2load -t1 -c$CONNECTIONS -m$STREAMS -D$DURATION; $ROUNDS rounds, $(nproc) cores, $(date -u +%FT%RZ)"

detail=/v1/products/3
DURATION=${DURATION}s compare_named "HTTP/1.1: cached detail, 1% sampled / off" "1%" "http://127.0.0.1:$SOME$detail" off "http://127.0.0.1:$OFF$detail"
DURATION=${DURATION}s compare_named "HTTP/1.1: cached detail, 100% sampled / off" "100%" "http://127.0.0.1:$ALL$detail" off "http://127.0.0.1:$OFF$detail"
MEASURE=measure_h2 CHECK_FLAGS=--http2-prior-knowledge compare_named "h2c: cached detail, 1% sampled / off" \
    "1%" "http://127.0.0.1:$SOME$detail" off "http://127.0.0.1:$OFF$detail"
MEASURE=measure_h2 CHECK_FLAGS=--http2-prior-knowledge compare_named "h2c: cached detail, 100% sampled / off" \
    "100%" "http://127.0.0.1:$ALL$detail" off "http://127.0.0.1:$OFF$detail"
# What reached the stand-in collector: every 100% request's span, in batches.
echo "exported by the 100% gateway: $(curl -fs "http://127.0.0.1:$ALL/metrics" | grep -E '^gateway_trace_spans_(exported|dropped)_total' | tr '\n' ' ')"
