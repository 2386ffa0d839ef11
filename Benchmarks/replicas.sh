#!/usr/bin/env bash
# What Redis costs and gives, on ONE event loop, with redis-server on loopback (Debian's,
# on the gateway's core): alternating rounds, medians, in one run.
#   - an L1 hit (a cached detail) with --redis-url against the same without Redis: must be
#     no slower (the hit path never touches Redis);
#   - an L2 hit: --page-cache-bytes 0 keeps nothing in the process, so every request is one
#     Redis round trip for a fresh shared entry; against the L1 hit;
#   - an origin miss (--detail-ttl 0 and no stale windows: every request goes to the
#     embedded demo origin) with Redis against without: what the shared tier's lookup and
#     lock add to a miss.
#
#   Benchmarks/replicas.sh
#   ROUNDS=3 DURATION=3s Benchmarks/replicas.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup

R=18497
$SERVER_CPU redis-server --port "$R" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --loglevel warning >/dev/null &
BENCH_PIDS+=($!)
for _ in $(seq 50); do [ "$(redis-cli -p "$R" ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
KEY=replica-benchmark-signing-key
REDIS="--redis-url redis://127.0.0.1:$R --image-signing-key $KEY"

# start NAME PORT ARGS...: a gateway on one loop; sets PID_<NAME>.
start() {
    local name=$1 port=$2
    shift 2
    start_gateway --host 127.0.0.1 --port "$port" --threads 1 --log-level warning --cache-dir "$WORK/$name" "$@"
    printf -v "PID_$name" %s "$GATEWAY_PID"
    wait_for "http://127.0.0.1:$port/healthz"
}

# pair LABEL NAME_A URL_A NAME_B URL_B: both warmed once, then compare_named (lib.sh).
pair() {
    curl -fs -o /dev/null "$3"
    curl -fs -o /dev/null "$5"
    compare_named "$@"
}

start withRedis 18498 $REDIS --detail-ttl 3600
start alone 18499 --detail-ttl 3600
pair "L1 hit, cached detail [c=$CONNECTIONS]" "with-redis" "http://127.0.0.1:18498/v1/products/3" "without" "http://127.0.0.1:18499/v1/products/3"

start l2 18500 $REDIS --detail-ttl 3600 --page-cache-bytes 0
pair "L2 hit (L1 off) against L1 hit [c=$CONNECTIONS]" "l2-hit" "http://127.0.0.1:18500/v1/products/3" "l1-hit" "http://127.0.0.1:18498/v1/products/3"
kill "$PID_withRedis" "$PID_alone" "$PID_l2"

start missRedis 18501 $REDIS --detail-ttl 0 --stale-while-revalidate 0 --stale-if-error 0
start missAlone 18502 --detail-ttl 0 --stale-while-revalidate 0 --stale-if-error 0
pair "origin miss [c=$CONNECTIONS]" "with-redis" "http://127.0.0.1:18501/v1/products/3" "without" "http://127.0.0.1:18502/v1/products/3"
saved=$CONNECTIONS
CONNECTIONS=1
pair "origin miss, one at a time (latency) [c=1]" "with-redis" "http://127.0.0.1:18501/v1/products/3" "without" "http://127.0.0.1:18502/v1/products/3"
CONNECTIONS=$saved
redis-cli -p "$R" info commandstats | grep -E 'cmdstat_(get|set|eval|publish)' || true
