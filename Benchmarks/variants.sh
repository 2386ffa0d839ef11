#!/usr/bin/env bash
# Image variants, release build, embedded demo origin:
#   1. rendering: a 12 MP JPEG photo (4000 × 3000, made here with libvips) to w≈320 WebP, one
#      render at a time (one core busy), beside vipsthumbnail doing the same in one process on
#      copies of the same source bytes (so neither pays a start-up per image); then the same for
#      AVIF (--avif-speed 8) and for w≈1280. Each request names a width not asked before
#      (--image-widths 313..320 and 1273..1280), so each is a render, not a hit; the source
#      comes from the disk tier, fetched once.
#   2. cached variant hits: the w=320 WebP from the memory tier on ONE event loop, beside nginx
#      on ONE worker serving the same bytes, alternately in the same run with wrk.
#
#   Benchmarks/variants.sh              # 8 renders per kind; 5 rounds of 5 s of hits
#   ROUNDS=3 Benchmarks/variants.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup
# vips and vipsthumbnail: the photo is made with them, and vipsthumbnail is the yardstick.
if ! command -v vipsthumbnail >/dev/null; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libvips-tools >/dev/null
fi

G=18494
N=18495
CACHE="$WORK/cache"

# A photo-like 12 MP JPEG: three noise bands, blurred, at quality 90.
for band in r g b; do vips gaussnoise "$WORK/$band.v" 4000 3000 --mean 128 --sigma 60; done
vips bandjoin "$WORK/r.v $WORK/g.v $WORK/b.v" "$WORK/rgb.v"
vips gaussblur "$WORK/rgb.v" "$WORK/blur.v" 3
vips cast "$WORK/blur.v" "$WORK/photo.v" uchar
vips jpegsave "$WORK/photo.v" "$WORK/photo.jpg" --Q 90
echo "photo: $(vipsheader "$WORK/photo.jpg" | cut -d: -f2-), $(stat -c %s "$WORK/photo.jpg") bytes"

# The gateway keeps the upload at full size (--origin-image-max-bytes above it).
start_gateway --host 127.0.0.1 --port "$G" --threads 1 --log-level warning --cache-dir "$CACHE" \
    --origin-image-max-bytes 50000000 --image-widths "$(seq -s, 313 320),$(seq -s, 1273 1280)"
wait_for "http://127.0.0.1:$G/healthz"
python3 - "$WORK/photo.jpg" >"$WORK/create.json" <<'PY'
import base64, json, sys
data = base64.b64encode(open(sys.argv[1], "rb").read()).decode()
print(json.dumps({"title": "benchmark photo", "description": "12 MP", "price": 10, "currency": "USD", "stock": 1,
                  "password": "pw1234", "images": [{"filename": "photo.jpg", "data": data}]}))
PY
ID=$(curl -fs -H 'Content-Type: application/json' --data-binary "@$WORK/create.json" "http://127.0.0.1:$G/v1/products" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
IMAGE=$(curl -fs "http://127.0.0.1:$G/v1/products/$ID" | python3 -c 'import json,sys; print(json.load(sys.stdin)["images"][0])')
# The first request fetches the source (then kept by the disk tier) and renders once.
curl -fs -o /dev/null "http://127.0.0.1:$G$IMAGE"

# Median seconds per render of $1 (Accept) over widths $2..$3, one request at a time.
render_median() {
    for width in $(seq "$2" "$3"); do
        curl -fs -o /dev/null -w '%{time_total}\n' -H "Accept: $1" "http://127.0.0.1:$G$IMAGE?w=$width"
    done | median
}

echo
echo "1. rendering the 12 MP JPEG, one at a time"
webp320=$(render_median image/webp 313 320)
# vipsthumbnail reads the very bytes the gateway renders from: the source the disk tier keeps
# (the largest file there, past its 46-byte header), the upload as the origin stored it.
source_file=$(ls -S "$CACHE/images" | head -1)
tail -c +47 "$CACHE/images/$source_file" >"$WORK/source.jpg"
echo "    source (the upload as the origin stored it: the gateway re-encoded it once, full size):"
echo "   $(vipsheader "$WORK/source.jpg" | cut -d: -f2-), $(stat -c %s "$WORK/source.jpg") bytes"
for index in $(seq 1 8); do cp "$WORK/source.jpg" "$WORK/copy-$index.jpg"; done
started=$(date +%s.%N)
vipsthumbnail --size 320x -o '%s-t.webp[Q=80,strip]' "$WORK"/copy-*.jpg
vips320=$(echo "$(date +%s.%N) $started" | awk '{printf "%.4f", ($1 - $2) / 8}')
awk -v g="$webp320" -v v="$vips320" 'BEGIN {
    printf "    gateway w=313..320 WebP:  median %.1f ms per render (request, render, store), %.2f renders/s\n", g * 1000, 1 / g
    printf "    vipsthumbnail w=320 WebP: %.1f ms per image (Q 80, strip; 8 images in one process), %.2f images/s\n", v * 1000, 1 / v
    printf "    gateway / vipsthumbnail time per image: %.2f\n", g / v }'
for kind in "image/avif 313 320" "image/webp 1273 1280" "image/avif 1273 1280"; do
    set -- $kind
    awk -v t="$(render_median "$1" "$2" "$3")" -v k="$1" -v w="$2..$3" 'BEGIN {printf "    gateway w=%s %s: median %.1f ms per render\n", w, k, t * 1000}'
done

echo
echo "2. cached variant hits"
curl -fs -o "$WORK/thumb.webp" -H 'Accept: image/webp' "http://127.0.0.1:$G$IMAGE?w=320"
curl -fsI -H 'Accept: image/webp' "http://127.0.0.1:$G$IMAGE?w=320" | grep -i '^cache-status\|^content-type\|^content-length'
start_nginx "$N" "
        location = /thumb { default_type image/webp; add_header Cache-Control 'public, max-age=31536000, immutable'; add_header Vary Accept; alias $WORK/thumb.webp; }"
compare "cached variant (w=320 WebP, $(stat -c %s "$WORK/thumb.webp") bytes), memory tier" \
    "http://127.0.0.1:$G$IMAGE?w=320" "http://127.0.0.1:$N/thumb" -H 'Accept: image/webp'
