"""A phone app's client, as URLSession behaves, for Benchmarks/screen/run.sh.

    client.py session --port P --proto h2|h1 --profile 4G --cache cold --run 1 --ca cert.pem
        one app session (a new process: new connections, no TLS session to resume): the four
        screens, printed as one JSON line with their times, bytes, floors and requests;
    client.py check --port P --profile 4G --ca cert.pem
        the emulator's checks against a plain TLS server (nginx serving /small and /1m).

TLS 1.3 everywhere (the test certificate as the only CA). HTTP/2: one connection, ALPN h2,
every request of a wave multiplexed. HTTP/1.1: ALPN http/1.1 only, at most 6 keep-alive
connections, each opened when a request waits and fewer are opening than requests wait,
requests queued first in, first out to whichever connection is free (no pipelining); new
connections resume the session's TLS session when it has a ticket, as URLSession does. The
raw bytes of every connection are counted below TLS (what the link carries, headers of the
packets aside).
"""
import argparse
import asyncio
import gzip
import json
import ssl
import statistics
import sys
import zlib
from collections import deque
from urllib.parse import urlsplit

import h2.config
import h2.connection
import h2.events
import h2.settings

import model

ACCEPT_IMAGE = "image/webp,image/*;q=0.8"
ACCEPT_JSON = "application/json"
ACCEPT_LANGUAGE = "ko-KR"
ACCEPT_ENCODING = "gzip, deflate, br"  # what URLSession adds to every request
USER_AGENT = "OpenMarket/1.0 CFNetwork/1490.0.4 Darwin/23.2.0"
# HTTP/2 receive windows, large as mobile clients set them: Safari/URLSession advertise a
# stream window (SETTINGS_INITIAL_WINDOW_SIZE) of 2-4 MiB and raise the connection's to
# about 10 MiB with a WINDOW_UPDATE (Chrome: 6 MiB and 15 MiB; OkHttp: 16 MiB). Here: a
# 4 MiB stream window and a 10 MiB connection window, so flow control never holds an answer
# of these screens back.
STREAM_WINDOW = 4 * 1024 * 1024
CONNECTION_WINDOW = 10 * 1024 * 1024
H1_MAX_CONNECTIONS = 6


def now():
    return asyncio.get_running_loop().time()


class Request:
    def __init__(self, path, accept, kind):
        self.path = path
        self.accept = accept
        self.kind = kind
        self.t_sent = self.t_first = self.t_last = None
        self.status = None
        self.headers = {}
        self.body = bytearray()
        self.conn = None
        self.stream = None
        self.done = asyncio.get_running_loop().create_future()

    def finish(self, t):
        self.t_last = t
        if not self.done.done():
            self.done.set_result(self)

    def fail(self, message):
        if not self.done.done():
            self.done.set_exception(RuntimeError(f"{self.path}: {message}"))

    def decoded(self):
        encoding = self.headers.get("content-encoding", "identity")
        if encoding == "gzip":
            return gzip.decompress(bytes(self.body))
        if encoding == "deflate":
            return zlib.decompress(bytes(self.body))
        if encoding == "identity":
            return bytes(self.body)
        raise RuntimeError(f"{self.path}: content-encoding {encoding}")

    def json(self):
        return json.loads(self.decoded())

    def summary(self, t0):
        ms = lambda t: None if t is None else round((t - t0) * 1000, 1)
        return {
            "kind": self.kind, "path": self.path[:60], "conn": self.conn, "stream": self.stream,
            "sent": ms(self.t_sent), "first": ms(self.t_first), "last": ms(self.t_last),
            "status": self.status, "bytes": len(self.body),
            "type": self.headers.get("content-type"), "cache": self.headers.get("cache-status"),
        }


class TLSConnection(asyncio.Protocol):
    """TLS over a raw socket through memory BIOs, so the raw bytes can be counted."""

    def __init__(self, session, alpn, ident):
        self.session = session
        self.ident = ident
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.tls = session.context(alpn).wrap_bio(
            self.incoming, self.outgoing, server_hostname="127.0.0.1", session=session.tls_session)
        self.ready = asyncio.get_running_loop().create_future()
        self.on_data = None  # on_data(bytes, time)
        self.on_close = None
        self.down = self.up = 0
        self.handshake_down = self.handshake_up = 0
        self.transport = None
        self.closed = False

    def connection_made(self, transport):
        self.transport = transport
        self.t_connect = now()
        self._handshake()

    def _flush(self):
        data = self.outgoing.read()
        if data:
            self.up += len(data)
            self.session.up += len(data)
            self.transport.write(data)

    def _handshake(self):
        try:
            self.tls.do_handshake()
        except ssl.SSLWantReadError:
            self._flush()
            return False
        self._flush()
        self.handshake_down, self.handshake_up = self.down, self.up
        self.t_ready = now()
        self.ready.set_result(self)
        return True

    def data_received(self, data):
        t = now()
        self.down += len(data)
        self.session.down += len(data)
        self.session.arrivals.append((t, len(data), self.ready.done()))
        self.incoming.write(data)
        if not self.ready.done() and not self._handshake():
            return
        chunks = []
        while True:
            try:
                chunk = self.tls.read(1 << 17)
            except ssl.SSLWantReadError:
                break
            except ssl.SSLZeroReturnError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        self._flush()
        session = self.tls.session
        if session is not None and session.has_ticket:
            self.session.tls_session = session
        if chunks and self.on_data is not None:
            self.on_data(b"".join(chunks), t)

    def send(self, data):
        self.tls.write(data)
        self._flush()

    def connection_lost(self, exc):
        self.closed = True
        if not self.ready.done():
            self.ready.set_exception(ConnectionError(f"closed during the handshake: {exc}"))
        if self.on_close is not None:
            self.on_close(exc)

    def close(self):
        if self.transport is not None and not self.closed:
            self.transport.close()

    def info(self):
        return {
            "id": self.ident, "alpn": self.tls.selected_alpn_protocol(), "version": self.tls.version(),
            "resumed": self.tls.session_reused, "handshake_ms": round((self.t_ready - self.t_connect) * 1000, 1),
            "handshake_down": self.handshake_down, "handshake_up": self.handshake_up,
        }


def request_head(req, port):
    return (f"GET {req.path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: {req.accept}\r\n"
            f"Accept-Language: {ACCEPT_LANGUAGE}\r\nAccept-Encoding: {ACCEPT_ENCODING}\r\n"
            f"User-Agent: {USER_AGENT}\r\nConnection: keep-alive\r\n\r\n").encode()


class HTTP1Connection:
    """One keep-alive HTTP/1.1 connection: one request at a time."""

    def __init__(self, pool, tls):
        self.pool = pool
        self.tls = tls
        tls.on_data = self.on_data
        tls.on_close = self.on_close
        self.req = None
        self.buf = bytearray()

    def start(self, req):
        self.req = req
        req.conn = self.tls.ident
        req.t_sent = now()
        self.state = "head"
        self.buf.clear()
        self.tls.send(request_head(req, self.pool.session.port))

    def on_data(self, data, t):
        req = self.req
        if req is None:
            raise RuntimeError("HTTP/1.1: bytes with no request outstanding")
        if req.t_first is None:
            req.t_first = t
        self.buf += data
        if self.state == "head":
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = self.buf[:end].decode("latin-1").split("\r\n")
            del self.buf[:end + 4]
            req.status = int(lines[0].split(" ")[1])
            for line in lines[1:]:
                name, _, value = line.partition(":")
                req.headers[name.strip().lower()] = value.strip()
            if req.headers.get("transfer-encoding", "").lower() == "chunked":
                self.state = "chunked"
            else:
                self.state = "body"
                self.left = int(req.headers.get("content-length", "0"))
        if self.state == "body":
            take = min(self.left, len(self.buf))
            req.body += self.buf[:take]
            del self.buf[:take]
            self.left -= take
            if self.left == 0:
                self._complete(t)
        elif self.state == "chunked":
            while True:
                line_end = self.buf.find(b"\r\n")
                if line_end < 0:
                    return
                size = int(self.buf[:line_end].split(b";")[0], 16)
                if size == 0:
                    if self.buf.find(b"\r\n\r\n", line_end) < 0 and not self.buf.endswith(b"0\r\n\r\n"):
                        return
                    self._complete(t)
                    return
                if len(self.buf) < line_end + 2 + size + 2:
                    return
                req.body += self.buf[line_end + 2:line_end + 2 + size]
                del self.buf[:line_end + 2 + size + 2]

    def _complete(self, t):
        req, self.req = self.req, None
        req.finish(t)
        if req.headers.get("connection", "").lower() == "close":
            self.pool.dropped(self)
            self.tls.close()
        else:
            self.pool.free(self)

    def on_close(self, exc):
        if self.req is not None:
            self.req.fail(f"connection closed: {exc}")
        self.pool.dropped(self)


class HTTP1Pool:
    def __init__(self, session):
        self.session = session
        self.idle = deque()
        self.queue = deque()
        self.opening = 0
        self.count = 0

    def submit(self, req):
        self.queue.append(req)
        self._dispatch()

    def _dispatch(self):
        while self.queue and self.idle:
            self.idle.popleft().start(self.queue.popleft())
        while len(self.queue) > self.opening and self.count < H1_MAX_CONNECTIONS:
            self.count += 1
            self.opening += 1
            asyncio.get_running_loop().create_task(self._open())

    async def _open(self):
        try:
            tls = await self.session.connect(["http/1.1"])
        except Exception as error:  # noqa: BLE001 - every waiting request learns of it
            for req in self.queue:
                req.fail(f"connect: {error}")
            return
        self.opening -= 1
        self.free(HTTP1Connection(self, tls))

    def free(self, conn):
        self.idle.append(conn)
        self._dispatch()

    def dropped(self, conn):
        if conn in self.idle:
            self.idle.remove(conn)
        self.count -= 1
        self._dispatch()


class HTTP2Connection:
    def __init__(self, session, tls):
        self.session = session
        self.tls = tls
        tls.on_data = self.on_data
        tls.on_close = self.on_close
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.h2 = h2.connection.H2Connection(config=config)
        self.h2.local_settings = h2.settings.Settings(client=True, initial_values={
            h2.settings.SettingCodes.ENABLE_PUSH: 0,
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 100,
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: STREAM_WINDOW,
        })
        self.h2.initiate_connection()
        self.h2.increment_flow_control_window(CONNECTION_WINDOW - 65535)
        self.streams = {}
        self.frames = []  # (time, stream, DATA bytes) of every DATA frame
        self.server_settings = {}
        self.window_updates = 0
        # The preface, SETTINGS and WINDOW_UPDATE go with the first requests, as clients do.

    def submit(self, reqs):
        authority = f"127.0.0.1:{self.session.port}"
        t = now()
        for req in reqs:
            sid = self.h2.get_next_available_stream_id()
            self.h2.send_headers(sid, [
                (":method", "GET"), (":scheme", "https"), (":authority", authority), (":path", req.path),
                ("accept", req.accept), ("accept-language", ACCEPT_LANGUAGE),
                ("accept-encoding", ACCEPT_ENCODING), ("user-agent", USER_AGENT),
            ], end_stream=True)
            req.conn, req.stream, req.t_sent = self.tls.ident, sid, t
            self.streams[sid] = req
        self.tls.send(self.h2.data_to_send())

    def on_data(self, data, t):
        for event in self.h2.receive_data(data):
            req = self.streams.get(getattr(event, "stream_id", None))
            if isinstance(event, h2.events.ResponseReceived):
                req.t_first = t
                req.headers = dict(event.headers)
                req.status = int(req.headers[":status"])
            elif isinstance(event, h2.events.DataReceived):
                req.body += event.data
                self.frames.append((t, event.stream_id, len(event.data)))
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                req.finish(t)
            elif isinstance(event, h2.events.StreamReset):
                req.fail(f"stream reset, error {event.error_code}")
            elif isinstance(event, h2.events.RemoteSettingsChanged):
                for code, change in event.changed_settings.items():
                    self.server_settings[getattr(code, "name", str(code))] = change.new_value
            elif isinstance(event, h2.events.WindowUpdated):
                self.window_updates += 1
            elif isinstance(event, h2.events.ConnectionTerminated):
                for r in self.streams.values():
                    r.fail(f"GOAWAY {event.error_code}")
        out = self.h2.data_to_send()
        if out:
            self.tls.send(out)

    def on_close(self, exc):
        for req in self.streams.values():
            req.fail(f"connection closed: {exc}")


class Session:
    """One app session: its connections and what they carried."""

    def __init__(self, port, proto, ca):
        self.port = port
        self.proto = proto
        self.ca = ca
        self.down = self.up = 0
        self.arrivals = []  # (time, raw bytes, after the handshake) of every read, on every connection
        self.tls_session = None
        self.connections = []
        self.h2 = None
        self.h2_opening = None
        self.pool = HTTP1Pool(self)
        # Made before the session's first request: an app has them ready.
        self._contexts = {key: self._make_context(key) for key in (("h2", "http/1.1"), ("http/1.1",))}

    def _make_context(self, alpn):
        ctx = ssl.create_default_context(cafile=self.ca)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        ctx.set_alpn_protocols(list(alpn))
        return ctx

    def context(self, alpn):
        return self._contexts[tuple(alpn)]

    async def connect(self, alpn):
        loop = asyncio.get_running_loop()
        tls = TLSConnection(self, alpn, len(self.connections) + 1)
        self.connections.append(tls)
        await loop.create_connection(lambda: tls, "127.0.0.1", self.port)
        await tls.ready
        chosen = tls.tls.selected_alpn_protocol()
        if chosen != alpn[0]:
            raise RuntimeError(f"ALPN chose {chosen!r}, not {alpn[0]!r}")
        return tls

    async def get(self, reqs):
        if self.proto == "h2":
            if self.h2 is None:
                if self.h2_opening is None:
                    self.h2_opening = asyncio.ensure_future(self.connect(["h2", "http/1.1"]))
                tls = await self.h2_opening
                if self.h2 is None:
                    self.h2 = HTTP2Connection(self, tls)
            self.h2.submit(reqs)
        else:
            for req in reqs:
                self.pool.submit(req)
        await asyncio.gather(*(req.done for req in reqs))
        for req in reqs:
            if req.status != 200:
                raise RuntimeError(f"{req.path}: status {req.status}: {bytes(req.body[:200])!r}")
            if req.kind != "list" and req.kind != "detail" and req.headers.get("content-type") != "image/webp":
                raise RuntimeError(f"{req.path}: content-type {req.headers.get('content-type')}")
        return reqs

    def close(self):
        for tls in self.connections:
            tls.close()


def relative(url, width):
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}&" if parts.query else "?") + f"w={width}"
    return path


class Screen:
    def __init__(self, session, name):
        self.session = session
        self.name = name
        self.waves = []
        self.wave_starts = []  # (time, index into the session's arrivals)

    def __enter__(self):
        self.t0 = now()
        self.down0, self.up0 = self.session.down, self.session.up
        self.conns0 = len(self.session.connections)
        return self

    async def wave(self, reqs):
        self.waves.append(reqs)
        self.wave_starts.append((now(), len(self.session.arrivals)))
        return await self.session.get(reqs)

    def __exit__(self, kind, *exc):
        if kind is not None:
            return False
        self.t_end = max(r.t_last for wave in self.waves for r in wave)
        self.down = self.session.down - self.down0
        self.up = self.session.up - self.up0
        self.new_conns = self.session.connections[self.conns0:]
        return False

    def exchanges(self, fresh):
        """The screen's bytes as one connection's exchanges, for the floor: the first new
        connection's handshake (when the session starts here), then one exchange per wave,
        the answers' bytes split by body size, the requests' by count."""
        hs_down = sum(c.handshake_down for c in self.new_conns)
        hs_up = sum(c.handshake_up for c in self.new_conns)
        app_down, app_up = self.down - hs_down, self.up - hs_up
        bodies = [sum(len(r.body) for r in wave) for wave in self.waves]
        counts = [len(wave) for wave in self.waves]
        out = []
        if fresh:
            first = self.new_conns[0]
            out.append((first.handshake_up, first.handshake_down))
        for body, count in zip(bodies, counts):
            out.append((round(app_up * count / sum(counts)), round(app_down * body / sum(bodies))))
        return out

    def result(self, floor_s):
        reqs = [r for wave in self.waves for r in wave]
        arrivals = self.session.arrivals
        # When the raw bytes of each wave's answers began to come (before TLS records are
        # whole and decrypted), on any connection other than new ones' handshakes.
        first_raw = []
        for (t, index), wave in zip(self.wave_starts, self.waves):
            last = max(r.t_last for r in wave)
            times = [a for a, _, after in arrivals[index:] if after and a <= last]
            first_raw.append(round((min(times) - self.t0) * 1000, 1) if times else None)
        return {
            "name": self.name, "ms": round((self.t_end - self.t0) * 1000, 1), "down": self.down, "up": self.up,
            "floor_ms": round(floor_s * 1000, 1), "new_connections": len(self.new_conns), "first_raw": first_raw,
            "requests": [r.summary(self.t0) for r in reqs],
        }


async def run_session(args):
    session = Session(args.port, args.proto, args.ca)
    screens = []
    image = lambda url, width: Request(relative(url, width), ACCEPT_IMAGE, f"w{width}")

    with Screen(session, "first screen") as s:
        (page1,) = await s.wave([Request("/v1/products?page=1" + args.include, ACCEPT_JSON, "list")])
        items1 = page1.json()["items"]
        await s.wave([image(item["thumbnails"][0], 320) for item in items1[:12]])
    screens.append(s)
    with Screen(session, "rest of page 1") as s:
        await s.wave([image(item["thumbnails"][0], 320) for item in items1[12:]])
    screens.append(s)
    with Screen(session, "page 2") as s:
        (page2,) = await s.wave([Request("/v1/products?page=2" + args.include, ACCEPT_JSON, "list")])
        await s.wave([image(item["thumbnails"][0], 320) for item in page2.json()["items"]])
    screens.append(s)
    with Screen(session, "detail") as s:
        (detail,) = await s.wave([Request(f"/v1/products/{args.detail_id}" + args.include.replace("&", "?", 1), ACCEPT_JSON, "detail")])
        await s.wave([image(url, 960) for url in detail.json()["images"]])
    screens.append(s)

    floors = model.floor(args.profile, [sc.exchanges(i == 0) for i, sc in enumerate(screens)])
    out = {
        "profile": args.profile, "proto": args.proto, "cache": args.cache, "run": args.run,
        "screens": [sc.result(f) for sc, f in zip(screens, floors)],
        "connections": [c.info() for c in session.connections],
    }
    if session.h2 is not None:
        t0 = screens[0].t0
        out["h2"] = {
            "server_settings": session.h2.server_settings, "window_updates": session.h2.window_updates,
            "frames": [(round((t - t0) * 1000, 1), sid, n) for t, sid, n in session.h2.frames],
        }
    session.close()
    await asyncio.sleep(0.05)
    print(json.dumps(out, ensure_ascii=False))


class OneConnection:
    """A pool of the one connection a check makes."""

    def __init__(self, session):
        self.session = session

    def free(self, conn):
        pass

    def dropped(self, conn):
        pass


async def timed_get(args, paths):
    """Fresh HTTP/1.1 connections made at once, one GET each; per connection: the time to
    the last byte and its exchanges (handshake, request) for the model."""
    session = Session(args.port, "h1", args.ca)
    t0 = now()

    async def one(path):
        tls = await session.connect(["http/1.1"])
        req = Request(path, "*/*", "check")
        HTTP1Connection(OneConnection(session), tls).start(req)
        await req.done
        if req.status != 200:
            raise RuntimeError(f"{path}: {req.status}")
        exchanges = [(tls.handshake_up, tls.handshake_down), (tls.up - tls.handshake_up, tls.down - tls.handshake_down)]
        return req.t_last - t0, exchanges, tls, len(req.body)

    results = await asyncio.gather(*(one(p) for p in paths))
    session.close()
    await asyncio.sleep(0.05)
    return results


async def run_check(args):
    rtt, down_bps, _ = model.PROFILES[args.profile]
    p = args.profile
    ms = lambda s: f"{s * 1000:,.0f} ms"

    def off(measured, expected):
        return f"{(measured - expected) * 1000:+.0f} ms, {100 * (measured - expected) / expected:+.1f}%"

    small = []
    for _ in range(3):
        small += await timed_get(args, ["/small"])
        await asyncio.sleep(0.3)
    t_med = statistics.median(t for t, *_ in small)
    predicted = model.parallel(p, [small[0][1]])[0]
    info = small[0][2].info()
    print(f"{p} check 1: fresh {info['version']} connection, GET of {small[0][3]:,} bytes: "
          f"{ms(t_med)} (median of {', '.join(ms(t) for t, *_ in small)}); "
          f"3 RTT = {ms(3 * rtt)} ({off(t_med, 3 * rtt)}); model {ms(predicted)} ({off(t_med, predicted)})")

    ((t, exchanges, _, body),) = await timed_get(args, ["/1m"])
    air = model.air_time(exchanges[1][1], down_bps)
    predicted = model.parallel(p, [exchanges])[0]
    print(f"{p} check 2: fresh connection, GET of {body:,} bytes ({exchanges[1][1]:,} on the wire): {ms(t)}; "
          f"air time at {down_bps / 1e6:g} Mbit/s {ms(air)} + 3 RTT {ms(3 * rtt)} = {ms(air + 3 * rtt)}, "
          f"slow start adds {(predicted - air - 3 * rtt) / rtt:.1f} RTT: model {ms(predicted)} ({off(t, predicted)})")
    await asyncio.sleep(0.5)

    both = await timed_get(args, ["/1m", "/1m"])
    predicted = model.parallel(p, [e for _, e, *_ in both])
    together = sum(e[1][1] for _, e, *_ in both)
    a, b = sorted(t for t, *_ in both)
    pa, pb = sorted(predicted)
    air2 = model.air_time(together, down_bps)
    print(f"{p} check 3: two GETs of {body:,} bytes at once on fresh connections: {ms(a)} and {ms(b)} "
          f"(model {ms(pa)} and {ms(pb)}: {off(a, pa)} and {off(b, pb)}); air time of both {ms(air2)} + 3 RTT = "
          f"{ms(air2 + 3 * rtt)}; alone one took {ms(t)}: they share the link")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["session", "check"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--profile", choices=sorted(model.PROFILES), required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--proto", choices=["h2", "h1"], default="h2")
    parser.add_argument("--cache", default="")
    parser.add_argument("--run", type=int, default=0)
    parser.add_argument("--detail-id", type=int, default=43)
    parser.add_argument("--include", default="", help="an include value for the list and detail requests (placeholders)")
    args = parser.parse_args()
    args.include = f"&include={args.include}" if args.include else ""
    try:
        asyncio.run(run_session(args) if args.mode == "session" else run_check(args))
    except Exception as error:  # noqa: BLE001 - one line for the script
        print(f"client.py {args.mode} {args.profile} {args.proto} {args.cache}: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
