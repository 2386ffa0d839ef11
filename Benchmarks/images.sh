#!/usr/bin/env bash
# Cached image throughput on ONE event loop, beside nginx on ONE worker serving the very
# same file (fetched from the gateway first), alternately in the same run with wrk:
#   - from the memory tier (the default);
#   - from the disk tier: the gateway restarted with --image-memory-bytes 0, so every
#     request reads, checks (SHA-256) and serves the file through the disk queue
#     (concurrent requests for the image share one read).
# The image is product 3's first one from the embedded demo origin (a 64 px PNG).
#
#   Benchmarks/images.sh          # 5 rounds of 5 s per scenario
#   ROUNDS=3 DURATION=10s Benchmarks/images.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup

G=18492
N=18493
CACHE="$WORK/cache"

# Starts the gateway with the given extra arguments and sets IMAGE to product 3's first
# image path, fetched once (so it is cached).
start_image_gateway() {
    start_gateway --host 127.0.0.1 --port "$G" --threads 1 --log-level warning --cache-dir "$CACHE" "$@"
    wait_for "http://127.0.0.1:$G/healthz"
    IMAGE=$(curl -fs "http://127.0.0.1:$G/v1/products/3" | sed 's/.*"images":\["\([^"]*\)".*/\1/')
    curl -fs -o "$WORK/image.png" "http://127.0.0.1:$G$IMAGE"
}

start_image_gateway
echo "image: $(stat -c %s "$WORK/image.png") bytes, $(file -b --mime-type "$WORK/image.png" 2>/dev/null || echo image/png)"
start_nginx "$N" "
        location = /image { default_type image/png; add_header Cache-Control 'public, max-age=31536000, immutable'; alias $WORK/image.png; }"

compare "cached image, memory tier: GET /v1/images/{token}" "http://127.0.0.1:$G$IMAGE" "http://127.0.0.1:$N/image"

kill "$GATEWAY_PID"
wait "$GATEWAY_PID" 2>/dev/null || true
start_image_gateway --image-memory-bytes 0
curl -fsI "http://127.0.0.1:$G$IMAGE" | grep -i '^cache-status'
compare "cached image, disk tier (memory tier off): GET /v1/images/{token}" "http://127.0.0.1:$G$IMAGE" "http://127.0.0.1:$N/image"
