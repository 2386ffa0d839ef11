# Shared by the benchmark scripts: tools, the release build, nginx on one worker, wrk runs
# and medians. Source it from a script that has `cd`-ed to the repository root.
# shellcheck shell=bash

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNECTIONS=${CONNECTIONS:-50}

bench_setup() {
    scripts/setup
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    command -v wrk >/dev/null || $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >/dev/null
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] \
        || $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light >/dev/null
    NGINX_BIN=$(command -v nginx || echo /usr/sbin/nginx)
    # GATEWAY_BIN=path measures another build (an earlier commit's, for a before/after).
    if [ -z "${GATEWAY_BIN:-}" ]; then
        swift build -c release --product gateway >&2
        GATEWAY_BIN="$(swift build -c release --show-bin-path)/gateway"
    fi
    WORK=$(mktemp -d)
    # nginx's workers run as nobody when it starts as root: they must be able to read what
    # is served from here (mktemp makes the directory 0700; until 2026-11-26 every
    # file-backed nginx location answered 403 here, and the ratios compared against it).
    chmod 755 "$WORK"
    BENCH_PIDS=()
    trap bench_cleanup EXIT
    # 1,000 connections need more descriptors than the usual soft limit, on both sides.
    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
    SERVER_CPU="taskset -c 0"
    CLIENT_CPU="taskset -c 1"
    if [ "$(nproc)" -lt 2 ]; then SERVER_CPU=""; CLIENT_CPU=""; fi
    echo "wrk -t1 -c$CONNECTIONS -d$DURATION, $ROUNDS rounds, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
}

bench_cleanup() {
    for pid in "${BENCH_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
    rm -rf "$WORK"
}

# Starts nginx with one worker on 127.0.0.1:$1; $2 is the server block's locations (and any
# server-level directives, such as ssl_certificate).
# NGINX_LISTEN_FLAGS go on the listen line (ssl, http2); NGINX_HTTP goes in the http block
# (proxy_cache_path, upstream);
# NGINX_WORKER_CONNECTIONS replaces the worker's 8,192 connections;
# NGINX_PREFIX is its directory (default $WORK: give another to run a second nginx);
# WAIT_FLAGS go to the curl that waits for it (--http2-prior-knowledge for an h2c-only port).
start_nginx() {
    local prefix=${NGINX_PREFIX:-$WORK}
    mkdir -p "$prefix"
    cat > "$prefix/nginx.conf" <<NGINX
worker_processes 1;
worker_rlimit_nofile 65536;
daemon off;
pid $prefix/nginx.pid;
error_log $prefix/nginx-error.log warn;
events { worker_connections ${NGINX_WORKER_CONNECTIONS:-8192}; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    open_file_cache max=1000 inactive=60s;
    open_file_cache_valid 60s;
    keepalive_timeout 75s;
    keepalive_requests 1000000;
    ${NGINX_HTTP:-}
    server {
        listen 127.0.0.1:$1 reuseport ${NGINX_LISTEN_FLAGS:-};
        $2
    }
}
NGINX
    $SERVER_CPU "$NGINX_BIN" -c "$prefix/nginx.conf" -p "$prefix" &
    BENCH_PIDS+=($!)
    wait_for "http://127.0.0.1:$1/" any
}

# Starts the gateway (release) pinned like nginx, with the given arguments; sets GATEWAY_PID.
start_gateway() {
    $SERVER_CPU "$GATEWAY_BIN" "$@" 2>"$WORK/gateway.log" &
    GATEWAY_PID=$!
    BENCH_PIDS+=("$GATEWAY_PID")
}

# Waits until $1 answers (any status when $2 is "any", else 2xx).
wait_for() {
    local flag=-fs
    [ "${2:-}" = any ] && flag=-s
    # shellcheck disable=SC2086
    for _ in $(seq 100); do curl $flag ${WAIT_FLAGS:-} -o /dev/null "$1" && return; sleep 0.1; done
    echo "no answer from $1" >&2
    exit 1
}

# One wrk run; extra arguments go to wrk before the URL. Prints "rps p50 p99".
measure() {
    local url=$1
    shift
    $CLIENT_CPU wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --latency "$@" "$url" >"$WORK/wrk.out"
    awk '/Requests\/sec/ {rps=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} END {print rps, p50, p99}' "$WORK/wrk.out"
}

# Fetches from the gateway on port $1 what the benchmarks serve from nginx too: the gzip list
# page, a detail and an image (its path in IMAGE), into $WORK.
fetch_stored() {
    curl -fs -H 'Accept-Encoding: gzip' -o "$WORK/list.json.gz" "http://127.0.0.1:$1/v1/products?page=1"
    curl -fs -o "$WORK/detail.json" "http://127.0.0.1:$1/v1/products/3"
    IMAGE=$(curl -fs "http://127.0.0.1:$1/v1/products/3" | sed 's/.*"images":\["\([^"]*\)".*/\1/')
    curl -fs -o "$WORK/image.png" "http://127.0.0.1:$1$IMAGE"
    echo "stored bytes: list page (gzip) $(stat -c %s "$WORK/list.json.gz"), detail $(stat -c %s "$WORK/detail.json"), image $(stat -c %s "$WORK/image.png")"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# Alternates gateway and nginx rounds and prints the medians and their ratio.
# $1 label, $2 gateway URL, $3 nginx URL, then wrk arguments (headers) for both.
compare() {
    local label=$1 gateway_url=$2 nginx_url=$3
    shift 3
    compare_named "$label" gateway "$gateway_url" nginx "$nginx_url" "$@"
}

# Alternates rounds of two named servers and prints the medians and the ratio first/second.
# $1 label, $2 first name, $3 its URL, $4 second name, $5 its URL, then wrk arguments for both.
# MEASURE names another runner than `measure` (printing "rps p50 p99"); CHECK_FLAGS go to the
# curl that checks both answer 2xx first (--http2-prior-knowledge for an h2c-only server).
# BASELINE_SED, when set, is a sed expression that turns the first URL into a third server's
# (an earlier build of the gateway, started by the caller): its rounds alternate with the other
# two, and the ratio first/baseline is printed too (a before and after in the same run).
compare_named() {
    local label=$1 name_a=$2 url_a=$3 name_b=$4 url_b=$5
    shift 5
    local url_c=""
    [ -n "${BASELINE_SED:-}" ] && url_c=$(sed -e "$BASELINE_SED" <<<"$url_a")
    # Each must answer 2xx with these headers, or the comparison means nothing.
    local url status
    for url in "$url_a" "$url_b" $url_c; do
        # shellcheck disable=SC2086
        status=$(curl -ks ${CHECK_FLAGS:-} -D "$WORK/check.head" -o "$WORK/check.body" -w '%{http_code}' "$@" "$url")
        case "$status" in
            2*) ;;
            *)
                # What the server said, and the gateway's last lines, to tell why.
                echo "$label: $url answers $status, not 2xx" >&2
                cat "$WORK/check.head" "$WORK/check.body" >&2
                echo >&2
                tail -n 20 "$WORK/gateway.log" >&2 || true
                exit 1
                ;;
        esac
    done
    : >"$WORK/g.txt"
    : >"$WORK/n.txt"
    : >"$WORK/c.txt"
    for _ in $(seq "$ROUNDS"); do
        "${MEASURE:-measure}" "$url_a" "$@" >>"$WORK/g.txt"
        [ -n "$url_c" ] && "${MEASURE:-measure}" "$url_c" "$@" >>"$WORK/c.txt"
        "${MEASURE:-measure}" "$url_b" "$@" >>"$WORK/n.txt"
    done
    local a b c
    a=$(cut -d' ' -f1 "$WORK/g.txt" | median)
    b=$(cut -d' ' -f1 "$WORK/n.txt" | median)
    echo "$label"
    printf '    %-8s median %s req/s; p50/p99 per round: %s\n' "$name_a:" "$a" "$(awk '{printf "%s/%s ", $2, $3}' "$WORK/g.txt")"
    if [ -n "$url_c" ]; then
        c=$(cut -d' ' -f1 "$WORK/c.txt" | median)
        printf '    %-8s median %s req/s; p50/p99 per round: %s\n' "baseline:" "$c" "$(awk '{printf "%s/%s ", $2, $3}' "$WORK/c.txt")"
    fi
    printf '    %-8s median %s req/s; p50/p99 per round: %s\n' "$name_b:" "$b" "$(awk '{printf "%s/%s ", $2, $3}' "$WORK/n.txt")"
    awk -v a="$a" -v b="$b" -v na="$name_a" -v nb="$name_b" 'BEGIN {printf "    ratio %s/%s: %.2f\n", na, nb, a/b}'
    if [ -n "$url_c" ]; then
        awk -v a="$c" -v b="$b" -v nb="$name_b" 'BEGIN {printf "    ratio baseline/%s: %.2f\n", nb, a/b}'
        awk -v a="$a" -v c="$c" -v na="$name_a" 'BEGIN {printf "    ratio %s/baseline: %.2f\n", na, a/c}'
    fi
}

# Installs h2load (Debian's nghttp2-client) when it is missing; for the scripts that use measure_h2.
need_h2load() {
    command -v h2load >/dev/null || $([ "$(id -u)" -ne 0 ] && echo sudo) env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends nghttp2-client >/dev/null
}

# One h2load run (-c CONNECTIONS -m STREAMS -D DURATION seconds); extra arguments go before
# the URL; fails unless every answer is 2xx. Prints "rps p50 p99" (p50/p99 in ms
# from the per-request log: its third column is the time in microseconds).
measure_h2() {
    local url=$1
    shift
    rm -f "$WORK/h2.log"
    $CLIENT_CPU h2load -t1 -c"$CONNECTIONS" -m"$STREAMS" -D"$DURATION" --warm-up-time=1 --log-file="$WORK/h2.log" "$@" "$url" >"$WORK/h2.out" 2>&1
    local rps
    rps=$(awk '/^finished in/ {print $4}' "$WORK/h2.out")
    local ok failed
    ok=$(awk '/^requests:/ {print $8}' "$WORK/h2.out")
    failed=$(awk '/^status codes:/ {print $5 + $7 + $9}' "$WORK/h2.out")
    [ "${ok:-0}" -gt 0 ] && [ "${failed:-1}" -eq 0 ] || { echo "h2load $url: not every answer was 2xx" >&2; grep -E "^(requests|status codes)" "$WORK/h2.out" >&2; awk '{print $2}' "$WORK/h2.log" | sort | uniq -c >&2; exit 1; }
    awk -v rps="$rps" '{print $3}' "$WORK/h2.log" | sort -n | awk -v rps="$rps" '{v[NR]=$1} END {printf "%s %.2fms %.2fms\n", rps, v[int(NR*0.5)]/1000, v[int(NR*0.99)]/1000}'
}
