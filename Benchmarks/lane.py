"""Benchmarks/lane.sh's clients (HTTP/1.1 keep-alive, asyncio, no dependencies).

    lane.py misses --port P --seconds S --connections C    a client's misses: details by id, in turn,
                                                         on C connections; prints count p50 p99 (ms)
    lane.py saturate --port P --admin A --token T         keeps the prefetch lane full until killed:
                                                         each second a purge of everything (which
                                                         forgets every placeholder and page), then
                                                         list pages 1-5 of 25 items (each a miss that
                                                         fetches its thumbnails ahead)
"""
import argparse
import asyncio
import statistics
import sys
import time


async def request(reader, writer, method, path, headers=()):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *headers, "", ""]
    writer.write("\r\n".join(lines).encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    await reader.readexactly(length)
    return status


async def misses(args):
    latencies = []
    end = time.monotonic() + args.seconds
    counter = iter(range(10**9))

    async def one():
        reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
        while time.monotonic() < end:
            product = next(counter) % 127 + 1
            started = time.monotonic()
            status = await request(reader, writer, "GET", f"/v1/products/{product}")
            latencies.append((time.monotonic() - started) * 1000)
            if status != 200:
                print(f"GET /v1/products/{product}: {status}", file=sys.stderr)
                sys.exit(1)
        writer.close()

    await asyncio.gather(*(one() for _ in range(args.connections)))
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"{len(latencies)} {statistics.median(latencies):.2f} {p99:.2f}")


async def saturate(args):
    """Each second: a purge of everything (every placeholder and page forgotten), then list
    pages 1-5 of 25 items, each a miss whose ~75 thumbnails go to the lane: about 375 jobs a
    second against the lane's ~130 (4 at once, 30 ms each), so it stays full, while the loop
    serves 6 requests a second for it (the client's misses are what is measured)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
    admin_reader, admin_writer = await asyncio.open_connection("127.0.0.1", args.admin)
    body = b'{"all":true}'
    while True:
        started = time.monotonic()
        admin_writer.write(b"POST /admin/purge HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           + f"Authorization: Bearer {args.token}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        await admin_writer.drain()
        head = await admin_reader.readuntil(b"\r\n\r\n")
        length = next(int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length"))
        await admin_reader.readexactly(length)
        for page in range(1, 6):
            await request(reader, writer, "GET", f"/v1/products?page={page}&pageSize=25")
        await asyncio.sleep(max(0, 1 - (time.monotonic() - started)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["misses", "saturate"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--admin", type=int)
    parser.add_argument("--token", default="")
    args = parser.parse_args()
    asyncio.run(misses(args) if args.mode == "misses" else saturate(args))


if __name__ == "__main__":
    main()
