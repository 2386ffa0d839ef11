#!/usr/bin/env bash
# What sign-in at the edge costs a cached read (docs/authentication.md): a release gateway with
# `--auth-required all` (its key set from a file) answering with a remembered bearer token,
# against the same gateway without authentication, sent the same request bytes (the same
# Authorization header, which the second ignores). wrk, alternating rounds, one loop each,
# pinned to core 0; then the noise-free counts per request (Benchmarks/counts.sh: system calls
# with strace -c, allocations with an LD_PRELOAD counter) for both.
#   Benchmarks/auth.sh                 ROUNDS=5 DURATION=5s, c=50
#   COUNTS=0 Benchmarks/auth.sh        without the counts
# The token is an ES256 access token made here with PyJWT (the differential test's venv).
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup
venv=.venv-tools
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import jwt, cryptography' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r Tests/Differential/requirements.txt >&2
fi
issuer=https://id.example.com/
audience=open-market-api
token=$("$venv/bin/python" Benchmarks/auth_token.py "$WORK" "$issuer" "$audience")
auth_flags="--auth-issuer $issuer --auth-audience $audience --auth-jwks-file $WORK/jwks.json --auth-required all --auth-algorithms ES256"
A=18821
P=18822
# shellcheck disable=SC2086
start_gateway --host 127.0.0.1 --port "$A" --threads 1 --log-level warning --cache-dir "$WORK/cache-a" --list-ttl 3600 --detail-ttl 3600 $auth_flags
mv "$WORK/gateway.log" "$WORK/gateway-auth.log" 2>/dev/null || true
start_gateway --host 127.0.0.1 --port "$P" --threads 1 --log-level warning --cache-dir "$WORK/cache-p" --list-ttl 3600 --detail-ttl 3600
wait_for "http://127.0.0.1:$A/healthz"
wait_for "http://127.0.0.1:$P/healthz"
header="Authorization: Bearer $token"
# Warm both caches (and the auth gateway's memory of the token).
for port in $A $P; do
    for path in "/v1/products?page=1" "/v1/products/3"; do
        curl -fs -o /dev/null -H "$header" -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port$path"
    done
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$A/v1/products/3")" = 401 ] || { echo "the auth gateway answered without a token" >&2; exit 1; }
echo "gateway with --auth-required all and a remembered ES256 token (auth) against none (plain); same request bytes"
compare_named "GET /v1/products/3 [c=$CONNECTIONS]" auth "http://127.0.0.1:$A/v1/products/3" plain "http://127.0.0.1:$P/v1/products/3" -H "$header"
compare_named "GET /v1/products?page=1 gzip [c=$CONNECTIONS]" auth "http://127.0.0.1:$A/v1/products?page=1" plain "http://127.0.0.1:$P/v1/products?page=1" \
    -H "$header" -H 'Accept-Encoding: gzip'
if [ "${COUNTS:-1}" != 0 ]; then
    echo
    echo "counts, with the token (auth):"
    GATEWAY_BIN=$GATEWAY_BIN AUTH_HEADER="$header" EXTRA="$auth_flags" N=${N:-5000} Benchmarks/counts.sh 2>&1 | grep -v '^Build\|^\[' 
    echo "counts, without authentication (plain), the same header sent:"
    GATEWAY_BIN=$GATEWAY_BIN AUTH_HEADER="$header" N=${N:-5000} Benchmarks/counts.sh 2>&1 | grep -v '^Build\|^\['
fi
