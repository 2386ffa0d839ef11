#!/usr/bin/env bash
# Requests per second on GET /healthz: the gateway on ONE event loop beside nginx on ONE
# worker answering the same 15 bytes, measured alternately in the same run with wrk.
#
#   Benchmarks/healthz.sh            # 5 rounds of 5 s each
#   ROUNDS=3 DURATION=10s CONNECTIONS=64 Benchmarks/healthz.sh
#
# On a 2-core machine the server is pinned to CPU 0 and wrk to CPU 1 (taskset). The gateway
# runs with --log-level warning (no access log) and, in a second series, with its default
# access log going to /dev/null.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup

start_nginx 18481 'location = /healthz { default_type application/json; add_header Cache-Control no-store; return 200 "{\"status\":\"ok\"}"; }'
for level in warning info; do
    start_gateway --host 127.0.0.1 --port 18480 --threads 1 --log-level "$level" --origin http://127.0.0.1:9
    wait_for http://127.0.0.1:18480/healthz
    compare "GET /healthz, gateway 1 loop (--log-level $level) vs nginx 1 worker" \
        http://127.0.0.1:18480/healthz http://127.0.0.1:18481/healthz
    kill "$GATEWAY_PID"
    wait "$GATEWAY_PID" 2>/dev/null || true
done
