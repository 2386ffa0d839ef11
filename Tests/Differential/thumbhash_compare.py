"""The gateway's ThumbHash against thumbhash-rs (PyPI, a Rust port of the reference), as oracle.

Generates seeded images (solid colours, gradients, noise, blurred noise like photos, shapes
with alpha, fully and partly transparent, every aspect ratio from 1x100 to 100x1), hashes each
with the gateway's probe and with the oracle, and decodes each oracle hash with both.

  - Hashes must be equal, except in fields the probe reports as rounded from halfway (within
    1e-3), where the two may round apart by one step, and in the factors of a channel whose
    scale is 0 in both (a flat channel: its factors are floating-point noise normalised, and
    decode to nothing, as the decoder multiplies them by that scale). thumbhash-rs computes in f32 where the
    reference computes in f64, and the reference's rounding (Math.round, half up) is the
    gateway's; PyPI's `thumbhash` 0.1.2 is not used (flat-colour decoder, no alpha, rounds
    half to even).
  - Decoded previews must have the same size and differ by at most 1 per channel.

usage: thumbhash_compare.py PROBE [--images N] [--seed S]; exits 1 on any other difference.
"""

import argparse
import base64
import json
import math
import random
import subprocess
import sys

import thumbhash


def sizes(rng, count):
    fixed = [(1, 1), (100, 100), (100, 1), (1, 100), (100, 37), (37, 100), (64, 64), (3, 97), (100, 75), (75, 100),
             (100, 56), (56, 100), (2, 2), (17, 5)]
    out = list(fixed)
    while len(out) < count:
        out.append((rng.randint(1, 100), rng.randint(1, 100)))
    return out[:count]


def image(rng, kind, w, h):
    px = bytearray(w * h * 4)

    def put(x, y, r, g, b, a):
        i = (y * w + x) * 4
        px[i:i + 4] = bytes((max(0, min(255, int(r))), max(0, min(255, int(g))), max(0, min(255, int(b))),
                             max(0, min(255, int(a)))))

    if kind == "solid":
        c = [rng.randrange(256) for _ in range(3)]
        for y in range(h):
            for x in range(w):
                put(x, y, *c, 255)
    elif kind == "gradient":
        a, b = [rng.randrange(256) for _ in range(3)], [rng.randrange(256) for _ in range(3)]
        angle = rng.random() * math.tau
        for y in range(h):
            for x in range(w):
                t = 0.5 + 0.5 * math.cos(angle) * (x / max(1, w - 1) - 0.5) * 2 * 0.5 \
                    + 0.5 * math.sin(angle) * (y / max(1, h - 1) - 0.5)
                put(x, y, *[a[k] + (b[k] - a[k]) * t for k in range(3)], 255)
    elif kind == "noise":
        for y in range(h):
            for x in range(w):
                put(x, y, rng.randrange(256), rng.randrange(256), rng.randrange(256), 255)
    elif kind == "photo":
        # Smooth blobs over a base colour: the low frequencies a ThumbHash keeps.
        base = [rng.randrange(256) for _ in range(3)]
        blobs = [(rng.random() * w, rng.random() * h, 3 + rng.random() * max(w, h) / 2,
                  [rng.randrange(-120, 120) for _ in range(3)]) for _ in range(5)]
        for y in range(h):
            for x in range(w):
                c = list(base)
                for bx, by, radius, delta in blobs:
                    f = math.exp(-((x - bx) ** 2 + (y - by) ** 2) / (radius * radius))
                    for k in range(3):
                        c[k] += delta[k] * f
                put(x, y, *[v + rng.randrange(-6, 7) for v in c], 255)
    elif kind == "disc-alpha":
        c = [rng.randrange(256) for _ in range(3)]
        cx, cy, radius = w / 2, h / 2, min(w, h) / 2.2
        for y in range(h):
            for x in range(w):
                inside = (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= radius * radius
                put(x, y, *c, 255 if inside else 0)
    elif kind == "alpha-ramp":
        c = [rng.randrange(256) for _ in range(3)]
        for y in range(h):
            for x in range(w):
                put(x, y, c[0] + rng.randrange(-20, 21), c[1], c[2], 255 * x / max(1, w - 1))
    elif kind == "transparent":
        for y in range(h):
            for x in range(w):
                put(x, y, rng.randrange(256), rng.randrange(256), rng.randrange(256), 0)
    elif kind == "noise-alpha":
        for y in range(h):
            for x in range(w):
                put(x, y, rng.randrange(256), rng.randrange(256), rng.randrange(256), rng.randrange(256))
    return bytes(px)


KINDS = ["solid", "gradient", "noise", "photo", "photo", "photo", "disc-alpha", "alpha-ramp", "transparent", "noise-alpha"]


def field(hash_bytes, offset, bits):
    number = int.from_bytes(hash_bytes, "little")
    return (number >> offset) & ((1 << bits) - 1)


def free_factors(hash_bytes):
    """(offset, bits) of every AC nibble of the channels whose scale field is 0."""
    header24 = field(hash_bytes, 0, 24)
    header16 = field(hash_bytes, 24, 16)
    has_alpha = header24 >> 23 & 1
    landscape = header16 >> 15 & 1
    lx = max(3, (5 if has_alpha else 7) if landscape else header16 & 7)
    ly = max(3, header16 & 7 if landscape else (5 if has_alpha else 7))

    def count(nx, ny):
        return sum(1 for cy in range(ny) for cx in range(nx) if cx * ny < nx * (ny - cy)) - 1

    channels = [(header24 >> 18 & 31, count(lx, ly)), (header16 >> 3 & 63, 5), (header16 >> 9 & 63, 5)]
    if has_alpha:
        channels.append((field(hash_bytes, 44, 4), 14))
    start = (6 if has_alpha else 5) * 8
    free = []
    for scale, factors in channels:
        if scale == 0:
            free += [(start + 4 * k, 4) for k in range(factors)]
        start += 4 * factors
    return free


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("probe")
    parser.add_argument("--images", type=int, default=400)
    parser.add_argument("--seed", type=int, default=20261126)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    cases = []
    for w, h in sizes(rng, args.images):
        kind = rng.choice(KINDS)
        cases.append((kind, w, h, image(rng, kind, w, h)))

    oracle_hashes = [bytes(thumbhash.rgba_to_thumb_hash(w, h, rgba)) for _, w, h, rgba in cases]
    lines = [json.dumps({"encode": [w, h, base64.b64encode(rgba).decode()]}) for _, w, h, rgba in cases]
    lines += [json.dumps({"decode": base64.b64encode(hash_).decode()}) for hash_ in oracle_hashes]
    run = subprocess.run([args.probe], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    if len(answers) != len(lines):
        print(f"thumbhash: the probe answered {len(answers)} of {len(lines)} lines", file=sys.stderr)
        return 1

    failures, exact, tie_differences, worst_channel = [], 0, 0, 0
    by_kind = {}
    for (kind, w, h, _), oracle, answer in zip(cases, oracle_hashes, answers[:len(cases)]):
        if "error" in answer:
            failures.append(f"{kind} {w}x{h}: the probe refused it: {answer['error']}")
            continue
        ours = base64.b64decode(answer["hash"])
        equal, total = by_kind.get(kind, (0, 0))
        by_kind[kind] = (equal + (ours == oracle), total + 1)
        if ours == oracle:
            exact += 1
            continue
        if len(ours) != len(oracle):
            failures.append(f"{kind} {w}x{h}: {len(ours)} bytes against the oracle's {len(oracle)}")
            continue
        ties = [tuple(t) for t in answer["ties"]]
        diff = int.from_bytes(ours, "little") ^ int.from_bytes(oracle, "little")
        explained = 0
        free = set(free_factors(ours)) & set(free_factors(oracle))
        for offset, bits in free:
            explained |= ((1 << bits) - 1) << offset
        ok = True
        for offset, bits in set(ties) - free:
            mask = ((1 << bits) - 1) << offset
            if diff & mask:
                if abs(field(ours, offset, bits) - field(oracle, offset, bits)) != 1:
                    ok = False
                explained |= mask
        if not ok or diff & ~explained:
            failures.append(f"{kind} {w}x{h}: {ours.hex()} against the oracle's {oracle.hex()} (ties at {ties})")
        else:
            tie_differences += 1

    for hash_, answer in zip(oracle_hashes, answers[len(cases):]):
        ow, oh, orgba = thumbhash.thumb_hash_to_rgba(hash_)
        if "error" in answer:
            failures.append(f"decode {hash_.hex()}: the probe refused it: {answer['error']}")
            continue
        rgba = base64.b64decode(answer["rgba"])
        if (answer["width"], answer["height"]) != (ow, oh) or len(rgba) != len(orgba):
            failures.append(f"decode {hash_.hex()}: {answer['width']}x{answer['height']} against the oracle's {ow}x{oh}")
            continue
        channel = max((abs(a - b) for a, b in zip(rgba, bytes(orgba))), default=0)
        worst_channel = max(worst_channel, channel)
        if channel > 1:
            failures.append(f"decode {hash_.hex()}: a channel differs by {channel}")

    print(f"thumbhash: {len(cases)} images: {exact} hashes equal to the oracle's, {tie_differences} apart only where "
          f"a value was rounded from halfway or a channel is flat; {len(cases)} previews decoded, largest channel difference {worst_channel}")
    print("  equal by kind: " + ", ".join(f"{kind} {equal}/{total}" for kind, (equal, total) in sorted(by_kind.items())))
    for failure in failures[:20]:
        print("  " + failure, file=sys.stderr)
    if failures:
        print(f"thumbhash: {len(failures)} differences", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
