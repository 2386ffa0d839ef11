#!/usr/bin/env python3
"""What an idle keep-alive connection costs a server, in resident memory.

Opens COUNT connections to HOST:PORT one after another; on each, sends one request for PATH
and reads its whole answer (Content-Length framed), then leaves the connection open and idle.
The server's resident set (VmRSS of PID, read from /proc) is read before the first connection
(after a warm-up connection that is closed again) and once every connection is open and idle;
the difference divided by COUNT is the cost of one idle connection. Then every connection is
closed. Prints one line: `label count rss_before_kb rss_after_kb bytes_per_connection`.

  idle.py --pid PID --port PORT --count 10000 [--tls] [--label NAME] [--path /healthz]
"""

import argparse
import resource
import socket
import ssl
import sys
import time


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def read_answer(conn) -> None:
    """Reads one Content-Length framed answer whole; fails on anything but a 200."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            raise RuntimeError("connection closed before the answer's head")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    if not lines[0].startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"unexpected answer: {lines[0]!r}")
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length is None:
        raise RuntimeError("answer without Content-Length")
    while len(body) < length:
        chunk = conn.recv(length - len(body))
        if not chunk:
            raise RuntimeError("connection closed inside the body")
        body += chunk


def closed_by_peer(conn) -> bool:
    """Whether the server closed `conn` (end of stream, close_notify or an error), without
    waiting: an open idle connection has nothing to read."""
    conn.setblocking(False)
    try:
        return conn.recv(1) == b""
    except (BlockingIOError, ssl.SSLWantReadError):
        return False
    except OSError:
        return True


def hpack_literal(name: bytes, value: bytes) -> bytes:
    """A literal field without indexing, new name, no Huffman (RFC 7541 6.2.2); short strings."""
    return bytes([0, len(name)]) + name + bytes([len(value)]) + value


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def h2_request(path: str) -> bytes:
    """The HTTP/2 preface, an empty SETTINGS, and a GET of `path` on stream 1 (ends the stream)."""
    block = b"".join(hpack_literal(n, v) for n, v in [(b":method", b"GET"), (b":scheme", b"http"),
                                                      (b":authority", b"localhost"), (b":path", path.encode())])
    return b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0) + frame(1, 0x5, 1, block)


def read_h2_answer(conn) -> None:
    """Reads frames until stream 1 ends; fails unless its HEADERS say 200 (HPACK static index 8),
    as both servers encode it. The server's SETTINGS is acknowledged."""
    data = b""
    status_ok = False
    while True:
        while len(data) < 9 or len(data) < 9 + int.from_bytes(data[:3], "big"):
            chunk = conn.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed before the answer ended")
            data += chunk
        length = int.from_bytes(data[:3], "big")
        kind, flags, stream = data[3], data[4], int.from_bytes(data[5:9], "big") & 0x7FFFFFFF
        payload, data = data[9:9 + length], data[9 + length:]
        if kind == 4 and not flags & 1:
            conn.sendall(frame(4, 1, 0))
        if kind == 7:
            raise RuntimeError("GOAWAY")
        if stream == 1 and kind == 1:
            status_ok = payload[:1] == b"\x88"
        if stream == 1 and kind in (0, 1) and flags & 1:
            if not status_ok:
                raise RuntimeError("the answer was not a 200")
            return


def open_one(args, context):
    raw = socket.create_connection((args.host, args.port))
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn = context.wrap_socket(raw, server_hostname="localhost") if context else raw
    if args.h2:
        if context and conn.selected_alpn_protocol() != "h2":
            raise RuntimeError("ALPN did not choose h2")
        conn.sendall(h2_request(args.path))
        read_h2_answer(conn)
        return conn
    conn.sendall(f"GET {args.path} HTTP/1.1\r\nHost: localhost\r\nUser-Agent: idle.py\r\n\r\n".encode())
    read_answer(conn)
    return conn


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid", type=int, required=True, help="the server process to measure")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--path", default="/healthz")
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--tls-version", choices=["1.2", "1.3"], default="1.3", help="the one TLS version offered")
    parser.add_argument("--h2", action="store_true", help="HTTP/2: h2c with prior knowledge, or h2 by ALPN with --tls")
    parser.add_argument("--label", default="server")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds to wait before each reading")
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, args.count + 256)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))

    context = None
    if args.tls:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        version = ssl.TLSVersion.TLSv1_3 if args.tls_version == "1.3" else ssl.TLSVersion.TLSv1_2
        context.minimum_version = version
        context.maximum_version = version
        context.set_alpn_protocols(["h2"] if args.h2 else ["http/1.1"])

    # Warm-up: the server's first request sets up what every later one reuses.
    open_one(args, context).close()
    time.sleep(args.settle)
    before = rss_kb(args.pid)
    connections = []
    try:
        for _ in range(args.count):
            connections.append(open_one(args, context))
        time.sleep(args.settle)
        after = rss_kb(args.pid)
        # Every connection must still be open: a server that closed some (a connection
        # limit, an idle timeout) would look cheaper than it is.
        closed = sum(1 for conn in connections if closed_by_peer(conn))
        if closed:
            raise RuntimeError(f"{closed} of {args.count} connections were closed by the server")
    finally:
        for conn in connections:
            conn.close()
    per_connection = (after - before) * 1024 / args.count
    print(f"{args.label} {args.count} {before} {after} {per_connection:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
