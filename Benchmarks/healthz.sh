#!/usr/bin/env bash
# Requests per second on GET /healthz: the gateway on ONE event loop beside nginx on ONE
# worker answering the same 15 bytes, measured alternately in the same run with wrk.
#
#   Benchmarks/healthz.sh            # 5 rounds of 10 s each
#   ROUNDS=3 DURATION=5s CONNECTIONS=64 Benchmarks/healthz.sh
#
# On a 2-core machine the server is pinned to CPU 0 and wrk to CPU 1 (taskset). The gateway
# runs with --log-level warning (no access log) and, in a second series, with its default
# access log going to /dev/null. Medians and the gateway/nginx ratio are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
GATEWAY_BENCH_PORT=${GATEWAY_BENCH_PORT:-18480}
NGINX_BENCH_PORT=${NGINX_BENCH_PORT:-18481}

scripts/setup
for tool in wrk nginx; do
    if ! command -v "$tool" >/dev/null; then
        package=$tool; [ "$tool" = nginx ] && package=nginx-light
        sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package" >/dev/null
    fi
done
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

swift build -c release --product gateway >&2
gateway_bin="$(swift build -c release --show-bin-path)/gateway"

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

server_cpu="taskset -c 0"; client_cpu="taskset -c 1"
[ "$(nproc)" -lt 2 ] && { server_cpu=""; client_cpu=""; }

cat > "$work/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$NGINX_BENCH_PORT reuseport;
        location = /healthz {
            default_type application/json;
            add_header Cache-Control no-store;
            return 200 '{"status":"ok"}';
        }
    }
}
NGINX
$server_cpu "$nginx_bin" -c "$work/nginx.conf" -p "$work" &
pids+=($!)

start_gateway() { # $1: log level
    $server_cpu "$gateway_bin" --host 127.0.0.1 --port "$GATEWAY_BENCH_PORT" --threads 1 --log-level "$1" 2>/dev/null &
    gateway_pid=$!
    pids+=($gateway_pid)
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$GATEWAY_BENCH_PORT/healthz" >/dev/null && return; sleep 0.1; done
    echo "gateway did not start" >&2; exit 1
}

measure() { # $1: url; prints "rps p50 p99"
    $client_cpu wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --latency "$1" > "$work/wrk.out"
    awk '/Requests\/sec/ {rps=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} END {print rps, p50, p99}' "$work/wrk.out"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

echo "wrk -t1 -c$CONNECTIONS -d$DURATION, $ROUNDS rounds, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
for level in warning info; do
    start_gateway "$level"
    : > "$work/g.txt"; : > "$work/n.txt"
    for round in $(seq "$ROUNDS"); do
        measure "http://127.0.0.1:$GATEWAY_BENCH_PORT/healthz" >> "$work/g.txt"
        measure "http://127.0.0.1:$NGINX_BENCH_PORT/healthz" >> "$work/n.txt"
    done
    kill "$gateway_pid"; wait "$gateway_pid" 2>/dev/null || true
    g=$(cut -d' ' -f1 "$work/g.txt" | median); n=$(cut -d' ' -f1 "$work/n.txt" | median)
    echo "gateway (1 loop, log-level $level): median $g req/s; rounds: $(cut -d' ' -f1 "$work/g.txt" | tr '\n' ' ')"
    echo "    latency p50/p99 per round: $(awk '{printf "%s/%s ", $2, $3}' "$work/g.txt")"
    echo "nginx (1 worker, same run):        median $n req/s; rounds: $(cut -d' ' -f1 "$work/n.txt" | tr '\n' ' ')"
    echo "    latency p50/p99 per round: $(awk '{printf "%s/%s ", $2, $3}' "$work/n.txt")"
    awk -v g="$g" -v n="$n" 'BEGIN {printf "ratio gateway/nginx: %.2f\n", g/n}'
done
