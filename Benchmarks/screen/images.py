"""Gives the demo origin's items photographs of realistic sizes, for Benchmarks/screen/run.sh.

    images.py --origin http://127.0.0.1:18610 --dir WORK/images --detail-id 43

The demo origin draws tiny PNGs (32 and 64 px) for its items, and its catalogue file can only
say how many; but a v1 `PATCH /item/{id}` with `images[]` parts replaces an item's images,
and the origin then serves the uploaded bytes unchanged at the item's `thumbnails` and
`images` URLs (`/thumbnails/{id}-{n}.jpg`, `/images/{id}-{n}.jpg`). So every item of the
list's pages 1 and 2 (ids from `GET /items/1` and `/items/2`) gets JPEGs of 1000 x 1000 and
about 217 KB (as many as it had images), and the detail item (not on those pages: uploaded
bytes are one object for both URLs, so an item cannot have a small thumbnail and large
images) gets JPEGs of 3000 x 2000 and about 1.3 MB.

The pictures are made with Pillow: a gradient, blurred shapes, and noise at three scales
(like texture and sensor grain), with the noise's strength searched so that each JPEG
(quality 85) is within 3% of its size; the gateway's 320 px WebP of one is about 18 KB.
"""
import argparse
import io
import json
import os
import random
import urllib.request
import uuid

from PIL import Image, ImageChops, ImageDraw, ImageFilter

THUMB = (1000, 1000, 217_000)
DETAIL = (3000, 2000, 1_300_000)


def picture(width, height, seed, strength):
    rnd = random.Random(seed)
    colour = lambda: tuple(rnd.randrange(256) for _ in range(3))
    gradient = Image.linear_gradient("L").rotate(rnd.randrange(360)).resize((width, height))
    img = Image.composite(Image.new("RGB", (width, height), colour()), Image.new("RGB", (width, height), colour()), gradient)
    draw = ImageDraw.Draw(img)
    for _ in range(40):
        x, y, r = rnd.randrange(width), rnd.randrange(height), rnd.randrange(width // 40, width // 5)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour())
    img = img.filter(ImageFilter.GaussianBlur(width / 300))
    for divisor, weight in ((16, 1.0), (4, 0.7), (1, 0.5)):
        w, h = max(1, width // divisor), max(1, height // divisor)
        layer = Image.merge("RGB", [Image.effect_noise((w, h), strength * weight) for _ in range(3)])
        if divisor > 1:
            layer = layer.resize((width, height), Image.BICUBIC)
        img = ImageChops.add(img, layer, scale=1.0, offset=-128)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=85)
    return out.getvalue()


def sized(width, height, target, seed, strength):
    """A JPEG within 3% of target bytes; returns it and the strength used."""
    for _ in range(8):
        data = picture(width, height, seed, strength)
        if abs(len(data) - target) <= 0.03 * target:
            return data, strength
        # Bytes grow about linearly with the noise's strength.
        strength = max(0.5, strength * (1 + 1.2 * (target - len(data)) / len(data)))
    raise SystemExit(f"images.py: no {width}x{height} JPEG near {target} bytes (last {len(data)})")


def multipart(fields, files):
    boundary = uuid.uuid4().hex
    body = bytearray()
    for name, value in fields.items():
        body += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
    for index, data in enumerate(files):
        body += (f'--{boundary}\r\nContent-Disposition: form-data; name="images[]"; filename="photo{index + 1}.jpg"\r\n'
                 f"Content-Type: image/jpeg\r\n\r\n").encode()
        body += data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return bytes(body), f"multipart/form-data; boundary={boundary}"


def request(method, url, body=None, content_type=None):
    req = urllib.request.Request(url, data=body, method=method)
    if content_type:
        req.add_header("Content-Type", content_type)
    with urllib.request.urlopen(req, timeout=60) as answer:
        return json.loads(answer.read())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--origin", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--detail-id", type=int, required=True)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)

    items = request("GET", f"{args.origin}/items/1")["items"] + request("GET", f"{args.origin}/items/2")["items"]
    if any(item["id"] == args.detail_id for item in items):
        raise SystemExit(f"images.py: the detail item {args.detail_id} is on page 1 or 2")
    detail = request("GET", f"{args.origin}/item/{args.detail_id}")

    thumbs, strength = [], 12.0
    for n in range(len(items)):
        data, strength = sized(*THUMB, seed=n, strength=strength)
        thumbs.append(data)
    larges, strength = [], 8.0
    for n in range(len(detail["images"])):
        data, strength = sized(*DETAIL, seed=1000 + n, strength=strength)
        larges.append(data)
    for n, data in enumerate(thumbs):
        with open(os.path.join(args.dir, f"thumb-{n}.jpg"), "wb") as f:
            f.write(data)

    for n, item in enumerate(items):
        # As many images as the item had; its first is its own, the others borrowed.
        files = [thumbs[(n + k) % len(thumbs)] for k in range(len(item["thumbnails"]))]
        body, content_type = multipart({"password": "password"}, files)
        answer = request("PATCH", f"{args.origin}/item/{item['id']}", body, content_type)
        assert all(url.endswith(".jpg") for url in answer["thumbnails"]), answer
    body, content_type = multipart({"password": "password"}, larges)
    answer = request("PATCH", f"{args.origin}/item/{args.detail_id}", body, content_type)
    assert all(url.endswith(".jpg") for url in answer["images"]), answer

    kb = lambda sizes: f"{min(sizes) / 1000:.0f}-{max(sizes) / 1000:.0f} KB (mean {sum(sizes) / len(sizes) / 1000:.0f} KB)"
    print(f"origin images: {len(thumbs)} thumbnails of 1000x1000 JPEG, {kb([len(t) for t in thumbs])}, "
          f"for items {items[0]['id']}-{items[-1]['id']}; detail item {args.detail_id}: "
          f"{len(larges)} of 3000x2000 JPEG, {kb([len(x) for x in larges])}")


if __name__ == "__main__":
    main()
