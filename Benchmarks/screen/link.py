"""An emulated mobile link in user space (this kernel has no netem): a TCP proxy on
127.0.0.1 that carries every connection through model.py's link in real time, one downlink
and one uplink shared by all connections (a phone's radio is shared).

    link.py --profile 4G --map 18613:127.0.0.1:18611 [--map ...]

Each --map listens on 127.0.0.1:LISTEN and connects each accepted connection to
HOST:PORT (on loopback, at once); the bytes between them go through the model: half the RTT
each way, one RTT more before a connection's first bytes (the TCP handshake), slow start
per connection and direction, one FIFO queue per direction at the link's rate.
"""
import argparse
import asyncio
import selectors
import signal
import sys

import model

HIGH = 1 << 20  # unsent bytes of one flow past which its source is no longer read
LOW = 256 << 10  # and under which it is read again


class RealClock:
    """Runs the model's events at their times on the event loop, and keeps how late each
    one ran (the loop sleeps in whole milliseconds)."""

    def __init__(self, loop):
        self.loop = loop
        self.late = []

    def now(self):
        return self.loop.time()

    def at(self, t, fn, *args):
        self.loop.call_at(t, self._run, t, fn, args)

    def _run(self, t, fn, args):
        self.late.append(self.loop.time() - t)
        fn(t, *args)

    def report(self):
        late = sorted(self.late)
        if not late:
            return "no events"
        pick = lambda q: late[min(len(late) - 1, int(q * len(late)))] * 1000
        return (f"{len(late):,} events ran late by median {pick(0.5):.2f} ms, "
                f"p99 {pick(0.99):.2f} ms, max {late[-1] * 1000:.2f} ms")


class Side(asyncio.Protocol):
    """One socket of a proxied connection; its bytes go into a flow."""

    def __init__(self, pair, name):
        self.pair = pair
        self.name = name
        self.transport = None
        self.pending = []  # bytes delivered before the socket was there
        self.flow = None  # the flow its bytes go into
        self.paused = False
        self.closed = False

    def connection_made(self, transport):
        self.transport = transport
        transport.set_write_buffer_limits(high=64 << 20)
        for data in self.pending:
            transport.write(data)
        self.pending = []
        self.pair.side_made(self)

    def write(self, data):
        if self.closed:
            return
        if self.transport is None:
            self.pending.append(data)
        else:
            self.transport.write(data)

    def data_received(self, data):
        flow = self.flow
        flow.push(self.pair.clock.now(), data)
        if flow.unsent > HIGH and not self.paused:
            self.paused = True
            self.transport.pause_reading()

    def resume(self):
        if self.paused and not self.closed:
            self.paused = False
            self.transport.resume_reading()

    def eof_received(self):
        self.pair.eof(self)
        return True

    def connection_lost(self, exc):
        self.closed = True
        self.pair.lost(self, exc)


class Pair:
    """A client connection and its upstream connection."""

    def __init__(self, emulator, host, port):
        self.clock = emulator.clock
        self.host, self.port = host, port
        self.client = Side(self, "client")
        self.server = Side(self, "server")
        self.done = False

    def side_made(self, side):
        if side is not self.client:
            return
        em = EMULATOR
        t = self.clock.now()
        em.connections += 1
        # Nothing moves either way before one RTT has passed: the SYN and SYN-ACK.
        self.up = model.Flow(self.clock, em.up, em.rtt, self.server.write, t + em.rtt)
        self.down = model.Flow(self.clock, em.down, em.rtt, self.client.write, t + em.rtt)
        self.client.flow, self.server.flow = self.up, self.down
        self.up.low = self.down.low = LOW
        self.up.on_unsent_low = self.client.resume
        self.down.on_unsent_low = self.server.resume
        loop = asyncio.get_running_loop()
        loop.create_task(self._connect_upstream())

    async def _connect_upstream(self):
        loop = asyncio.get_running_loop()
        try:
            await loop.create_connection(lambda: self.server, self.host, self.port)
        except OSError as error:
            print(f"link: upstream {self.host}:{self.port}: {error}", file=sys.stderr)
            self.client.transport.abort()

    def eof(self, side):
        # Half-close travels like the bytes: after what was sent before it.
        flow, other = (self.up, self.server) if side is self.client else (self.down, self.client)

        def forward():
            if other.transport is not None and not other.closed and other.transport.can_write_eof():
                other.transport.write_eof()

        flow.on_idle = forward
        flow._check_idle()

    def lost(self, side, exc):
        flow, other = (self.up, self.server) if side is self.client else (self.down, self.client)

        def close():
            if other.transport is not None and not other.closed:
                other.transport.close()

        if flow is None:
            close()
            return
        flow.on_idle = close
        flow._check_idle()


class Emulator:
    def __init__(self, profile):
        self.rtt, down_bps, up_bps = model.PROFILES[profile]
        self.up = model.Link(up_bps)
        self.down = model.Link(down_bps)
        self.clock = RealClock(asyncio.get_running_loop())
        self.connections = 0


EMULATOR = None


async def main():
    global EMULATOR
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", choices=sorted(model.PROFILES), required=True)
    parser.add_argument("--map", action="append", required=True, help="LISTEN:HOST:PORT")
    args = parser.parse_args()
    EMULATOR = Emulator(args.profile)
    loop = asyncio.get_running_loop()
    servers = []
    for spec in args.map:
        listen, host, port = spec.split(":")
        servers.append(await loop.create_server(
            lambda host=host, port=int(port): Pair(EMULATOR, host, port).client, "127.0.0.1", int(listen)))
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    print("ready", flush=True)
    await stop
    for server in servers:
        server.close()
    print(f"link {args.profile}: {EMULATOR.connections} connections; {EMULATOR.clock.report()}", flush=True)


if __name__ == "__main__":
    # select(2) sleeps to the microsecond, where epoll rounds every wait up to a whole
    # millisecond: the model's events run closer to their times. (A few dozen sockets.)
    loop = asyncio.SelectorEventLoop(selectors.SelectSelector())
    asyncio.set_event_loop(loop)
    loop.run_until_complete(main())
