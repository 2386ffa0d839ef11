#!/usr/bin/env bash
# What Redis costs and gives, on ONE event loop, with redis-server on loopback (Debian's,
# on the gateway's core): alternating rounds, medians, in one run.
#   - an L1 hit (a cached detail) with --redis-url against the same without Redis: must be
#     no slower (the hit path never touches Redis);
#   - an L2 hit: --page-cache-bytes 0 keeps nothing in the process, so every request is one
#     Redis round trip for a fresh shared entry; against the L1 hit;
#   - an origin miss (--detail-ttl 0 and no stale windows: every request goes to the
#     embedded demo origin) with Redis against without: what the shared tier's lookup and
#     lock add to a miss;
#   - the L2 hit and the miss over rediss:// (TLS 1.3, the same redis-server's TLS port, a
#     CA made for the run) against redis://. Goal: TLS costs an L2 hit at most 10%;
#   - a failover: a primary, its replica and three sentinels (down-after 1000 ms), two
#     gateways on redis-sentinel:// (one loop each, --detail-ttl 1, so reads keep reaching
#     Redis and the origin), USERS (32) readers back to back for 16 s, the primary killed at
#     5 s (Benchmarks/failover.py): errors, p50/p99 before, during the switch and after, and
#     the seconds to the sentinels' switch and to each gateway following it. Goal: no read
#     fails, and p99 stays under --redis-timeout plus the origin's own latency.
#
#   Benchmarks/replicas.sh
#   ROUNDS=3 DURATION=3s Benchmarks/replicas.sh
#   FAILOVER_ONLY=1 Benchmarks/replicas.sh      the failover alone
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup
KEY=replica-benchmark-signing-key

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

if [ -z "${FAILOVER_ONLY:-}" ]; then
R=18497
$SERVER_CPU redis-server --port "$R" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --loglevel warning >/dev/null &
BENCH_PIDS+=($!)
for _ in $(seq 50); do [ "$(redis-cli -p "$R" ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
REDIS="--redis-url redis://127.0.0.1:$R --image-signing-key $KEY"

# The same server's TLS port, with a certificate from a CA made here.
RT=18503
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=bench-ca \
    -keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
    -keyout "$WORK/redis.key" -out "$WORK/redis.csr" 2>/dev/null
openssl x509 -req -in "$WORK/redis.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -days 2 \
    -extfile <(printf 'subjectAltName=IP:127.0.0.1') -out "$WORK/redis.pem" 2>/dev/null
redis-cli -p "$R" config set tls-cert-file "$WORK/redis.pem" >/dev/null
redis-cli -p "$R" config set tls-key-file "$WORK/redis.key" >/dev/null
redis-cli -p "$R" config set tls-ca-cert-file "$WORK/ca.pem" >/dev/null
redis-cli -p "$R" config set tls-auth-clients no >/dev/null
redis-cli -p "$R" config set tls-port "$RT" >/dev/null
REDISS="--redis-url rediss://127.0.0.1:$RT --redis-ca-file $WORK/ca.pem --image-signing-key $KEY"


start withRedis 18498 $REDIS --detail-ttl 3600
start alone 18499 --detail-ttl 3600
pair "L1 hit, cached detail [c=$CONNECTIONS]" "with-redis" "http://127.0.0.1:18498/v1/products/3" "without" "http://127.0.0.1:18499/v1/products/3"

start l2 18500 $REDIS --detail-ttl 3600 --page-cache-bytes 0
pair "L2 hit (L1 off) against L1 hit [c=$CONNECTIONS]" "l2-hit" "http://127.0.0.1:18500/v1/products/3" "l1-hit" "http://127.0.0.1:18498/v1/products/3"
start l2tls 18504 $REDISS --detail-ttl 3600 --page-cache-bytes 0
pair "L2 hit (L1 off), rediss:// against redis:// [c=$CONNECTIONS]" "rediss" "http://127.0.0.1:18504/v1/products/3" "redis" "http://127.0.0.1:18500/v1/products/3"
kill "$PID_withRedis" "$PID_alone" "$PID_l2" "$PID_l2tls"

start missRedis 18501 $REDIS --detail-ttl 0 --stale-while-revalidate 0 --stale-if-error 0
start missAlone 18502 --detail-ttl 0 --stale-while-revalidate 0 --stale-if-error 0
pair "origin miss [c=$CONNECTIONS]" "with-redis" "http://127.0.0.1:18501/v1/products/3" "without" "http://127.0.0.1:18502/v1/products/3"
saved=$CONNECTIONS
CONNECTIONS=1
pair "origin miss, one at a time (latency) [c=1]" "with-redis" "http://127.0.0.1:18501/v1/products/3" "without" "http://127.0.0.1:18502/v1/products/3"
CONNECTIONS=$saved
start missTLS 18505 $REDISS --detail-ttl 0 --stale-while-revalidate 0 --stale-if-error 0
pair "origin miss, rediss:// against redis:// [c=$CONNECTIONS]" "rediss" "http://127.0.0.1:18505/v1/products/3" "redis" "http://127.0.0.1:18501/v1/products/3"
redis-cli -p "$R" info commandstats | grep -E 'cmdstat_(get|set|eval|publish)' || true

fi

# The failover: its own primary, replica and sentinels (all on the client's core).
P=18510 S=18511
for port in $P $S; do
    extra=()
    [ "$port" = "$S" ] && extra=(--replicaof 127.0.0.1 "$P")
    $CLIENT_CPU redis-server --port "$port" --bind 127.0.0.1 --dir "$WORK" --save '' --appendonly no --daemonize no --loglevel warning "${extra[@]}" >/dev/null &
    BENCH_PIDS+=($!)
    [ "$port" = "$P" ] && PRIMARY_PID=$!
done
SENTINELS=()
for port in 18512 18513 18514; do
    printf 'port %s\nbind 127.0.0.1\nsentinel monitor omg 127.0.0.1 %s 2\nsentinel down-after-milliseconds omg 1000\nsentinel failover-timeout omg 5000\n' \
        "$port" "$P" >"$WORK/sentinel-$port.conf"
    $CLIENT_CPU redis-server "$WORK/sentinel-$port.conf" --sentinel --loglevel warning >/dev/null &
    BENCH_PIDS+=($!)
    SENTINELS+=("127.0.0.1:$port")
done
# Until every sentinel knows the replica and the two others (a failover before aborts).
for _ in $(seq 300); do
    ready=0
    for port in 18512 18513 18514; do
        replicas=$(redis-cli -p "$port" sentinel replicas omg 2>/dev/null | grep -c '^name$' || true)
        peers=$(redis-cli -p "$port" sentinel sentinels omg 2>/dev/null | grep -c '^name$' || true)
        [ "$replicas" = 1 ] && [ "$peers" = 2 ] && ready=$((ready + 1))
    done
    [ "$ready" = 3 ] && break
    sleep 0.1
done
SENTINEL_URL="redis-sentinel://$(IFS=,; echo "${SENTINELS[*]}")/omg"
start failA 18515 --redis-url "$SENTINEL_URL" --image-signing-key $KEY --detail-ttl 1
start failB 18516 --redis-url "$SENTINEL_URL" --image-signing-key $KEY --detail-ttl 1
for port in 18515 18516; do
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/readyz" | grep -q "\"redisPrimary\":\"127.0.0.1:$P\"" && break; sleep 0.1; done
done
echo "failover under reads (2 gateways, redis-sentinel://, --detail-ttl 1):"
PRIMARY_PID=$PRIMARY_PID SENTINEL_PORT=18512 REPLICA_PORT=$S $CLIENT_CPU python3 Benchmarks/failover.py http://127.0.0.1:18515 http://127.0.0.1:18516
grep 'redis primary moved' "$WORK/gateway.log" || true
