#!/usr/bin/env bash
# What an idle keep-alive connection costs in memory: the gateway on ONE loop against nginx on
# ONE worker (the benchmarks' usual nginx, keepalive_timeout 75s, enough worker_connections,
# TLS as Mozilla's intermediate profile has it: TLSv1.2 and TLSv1.3), in one run, plain
# HTTP/1.1 and over TLS 1.3 and TLS 1.2 (the same throwaway P-256 certificate for both
# servers), and HTTP/2 (h2c with prior knowledge, and h2 over TLS 1.3 by ALPN) after one
# stream each. For each server and protocol a fresh server answers one warm-up request, then
# Benchmarks/idle.py opens COUNT connections, each after one GET /healthz answered whole,
# reads the server's resident set (VmRSS) before and after, and checks that every connection
# is still open: the difference over COUNT is one idle connection's cost. ROUNDS rounds
# alternate gateway and nginx; medians are printed.
#   Benchmarks/idle.sh                      COUNT=10000, ROUNDS=3
#   COUNT=4000 ROUNDS=1 Benchmarks/idle.sh
#   GATEWAY_BIN=path Benchmarks/idle.sh     another build of the gateway
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-10000}
ROUNDS=${ROUNDS:-3}
source Benchmarks/lib.sh
bench_setup

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost -days 1 \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
G=18594
N=18596

# Idle connections must outlive the measurement on both sides.
gateway_args=(--host 127.0.0.1 --port "$G" --threads 1 --log-level warning --idle-timeout 300 --max-connections $((COUNT + 1000)))

stop() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# $1 label, $2 pid, $3 port, then idle.py flags. Appends the bytes per connection to $WORK/$1.
measure_idle() {
    local label=$1 pid=$2 port=$3
    shift 3
    $CLIENT_CPU python3 Benchmarks/idle.py --pid "$pid" --port "$port" --count "$COUNT" --label "$label" "$@" | tee -a "$WORK/lines"
    tail -1 "$WORK/lines" | awk '{print $5}' >>"$WORK/$label"
}

nginx_round() {
    local listen=$1 label=$2
    shift 2
    start_nginx "$N" "
        $listen
        location = /healthz { default_type application/json; add_header Cache-Control no-store; return 200 '{\"status\":\"ok\"}'; }"
    local master
    master=$(cat "$WORK/nginx.pid")
    measure_idle "$label" "$(pgrep -P "$master" | head -1)" "$N" "$@"
    kill "$master"
    while kill -0 "$master" 2>/dev/null; do sleep 0.1; done
    rm -f "$WORK/nginx.pid"
}

export NGINX_WORKER_CONNECTIONS=$((COUNT + 1000))
nginx_tls="ssl_protocols TLSv1.2 TLSv1.3; ssl_certificate $WORK/cert.pem; ssl_certificate_key $WORK/key.pem;"
labels=(gateway-plain nginx-plain)
for version in 1.3 1.2; do labels+=("gateway-tls$version" "nginx-tls$version"); done
labels+=(gateway-h2c nginx-h2c gateway-h2-tls1.3 nginx-h2-tls1.3)

for _ in $(seq "$ROUNDS"); do
    start_gateway "${gateway_args[@]}"
    wait_for "http://127.0.0.1:$G/healthz"
    measure_idle gateway-plain "$GATEWAY_PID" "$G"
    stop "$GATEWAY_PID"

    nginx_round "" nginx-plain

    for version in 1.3 1.2; do
        start_gateway "${gateway_args[@]}" --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem"
        for _ in $(seq 100); do curl -ksf -o /dev/null "https://127.0.0.1:$G/healthz" && break; sleep 0.1; done
        measure_idle "gateway-tls$version" "$GATEWAY_PID" "$G" --tls --tls-version "$version"
        stop "$GATEWAY_PID"

        NGINX_LISTEN_FLAGS=ssl nginx_round "$nginx_tls" "nginx-tls$version" --tls --tls-version "$version"
    done

    # HTTP/2: after one stream (GET /healthz) answered, each connection idles with its session.
    start_gateway "${gateway_args[@]}"
    wait_for "http://127.0.0.1:$G/healthz"
    measure_idle gateway-h2c "$GATEWAY_PID" "$G" --h2
    stop "$GATEWAY_PID"
    NGINX_LISTEN_FLAGS=http2 WAIT_FLAGS=--http2-prior-knowledge nginx_round "" nginx-h2c --h2
    start_gateway "${gateway_args[@]}" --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem"
    for _ in $(seq 100); do curl -ksf -o /dev/null "https://127.0.0.1:$G/healthz" && break; sleep 0.1; done
    measure_idle gateway-h2-tls1.3 "$GATEWAY_PID" "$G" --tls --tls-version 1.3 --h2
    stop "$GATEWAY_PID"
    NGINX_LISTEN_FLAGS="ssl http2" nginx_round "$nginx_tls" nginx-h2-tls1.3 --tls --tls-version 1.3 --h2
done

echo "idle keep-alive connections: $COUNT per round, $ROUNDS rounds; bytes of resident memory per idle connection (median)"
for label in "${labels[@]}"; do
    printf '    %-16s %s\n' "$label" "$(median <"$WORK/$label")"
done
