"""The emulated mobile link: one model, run in real time by link.py (the proxy) and in
virtual time by floor() (what the link allows for given bytes, with nothing else in the way).

One direction of the link (Link) is one FIFO radio queue shared by every connection: a
packet of n payload bytes takes (n + HEADER) * 8 / rate seconds on it, after the packets
queued before it. One direction of one connection (Flow) sends its bytes in segments of at
most MSS bytes as its congestion window allows: the window starts at INIT_CWND bytes and
grows by the bytes acknowledged (slow start, no loss, no ssthresh); a segment counts as
acknowledged one RTT after it has left the radio queue, and reaches the other end half an
RTT after it has left it. A connection's flows open one RTT after the connect (the TCP
handshake, which the kernel completes at once on loopback): nothing is sent before.
"""
import heapq
from collections import deque

MSS = 1448  # payload bytes per segment
HEADER = 52  # TCP/IPv4 headers with timestamps: counted in a packet's air time
INIT_CWND = 10 * MSS

# name: (RTT in s, downlink bit/s, uplink bit/s)
PROFILES = {
    "4G": (0.080, 12_000_000, 4_000_000),
    "3G": (0.250, 1_600_000, 750_000),
}


def air_time(nbytes, bps):
    """Seconds nbytes of payload take on a link of bps, in full segments and headers."""
    full, rest = divmod(nbytes, MSS)
    packets = full + (1 if rest else 0)
    return (nbytes + packets * HEADER) * 8 / bps


class Link:
    """One direction's radio: a single FIFO queue at the link rate, shared by all flows."""

    def __init__(self, bps):
        self.bps = bps
        self.busy_until = 0.0

    def transmit(self, t, nbytes):
        """A packet of nbytes payload queued at t; returns when it has left the queue."""
        start = t if t > self.busy_until else self.busy_until
        self.busy_until = start + (nbytes + HEADER) * 8 / self.bps
        return self.busy_until


class Flow:
    """One direction of one connection: bytes in (push), segments out at the far end
    (deliver) as the congestion window and the shared link allow."""

    def __init__(self, clock, link, rtt, deliver, open_at):
        self.clock = clock
        self.link = link
        self.rtt = rtt
        self.deliver = deliver  # deliver(bytes)
        self.open_at = open_at
        self.chunks = deque()  # [arrival time, bytes, offset]
        self.unsent = 0
        self.cwnd = INIT_CWND
        self.inflight = 0
        self.in_air = deque()  # (delivery time, bytes)
        self.waiting_open = False
        self.on_unsent_low = None  # called when unsent falls under LOW (backpressure)
        self.low = 0
        self.sent_bytes = 0
        self.on_idle = None  # called once nothing is unsent or in the air

    def push(self, t, data):
        if not data:
            return
        self.chunks.append([t, data, 0])
        self.unsent += len(data)
        self.pump(t)

    def _take(self, n):
        parts = []
        arrived = 0.0
        while n and self.chunks:
            chunk = self.chunks[0]
            a, data, off = chunk
            if a > arrived:
                arrived = a
            left = len(data) - off
            if left <= n:
                parts.append(data[off:] if off else data)
                self.chunks.popleft()
                n -= left
            else:
                parts.append(data[off:off + n])
                chunk[2] = off + n
                n = 0
        seg = parts[0] if len(parts) == 1 else b"".join(parts)
        self.unsent -= len(seg)
        return seg, arrived

    def pump(self, t):
        if t < self.open_at:
            if not self.waiting_open:
                self.waiting_open = True
                self.clock.at(self.open_at, self._opened)
            return
        while self.unsent and self.inflight + min(MSS, self.unsent) <= self.cwnd:
            seg, arrived = self._take(MSS)
            # An event handled late (real time) sends at its own time, but never before
            # the bytes were there.
            end = self.link.transmit(max(t, arrived), len(seg))
            self.inflight += len(seg)
            self.sent_bytes += len(seg)
            self.in_air.append((end + self.rtt / 2, seg))
            self.clock.at(end + self.rtt / 2, self._arrive)
            self.clock.at(end + self.rtt, self._ack, len(seg))
        if self.on_unsent_low is not None and self.unsent <= self.low:
            self.on_unsent_low()

    def _opened(self, t):
        self.waiting_open = False
        self.pump(t)

    def _arrive(self, t):
        while self.in_air and self.in_air[0][0] <= t:
            self.deliver(self.in_air.popleft()[1])
        self._check_idle()

    def _ack(self, t, n):
        self.inflight -= n
        self.cwnd += n  # slow start: the window grows by what is acknowledged
        self.pump(t)
        self._check_idle()

    def _check_idle(self):
        if self.on_idle is not None and not self.unsent and not self.in_air:
            callback, self.on_idle = self.on_idle, None
            callback()


class VirtualClock:
    """Events in virtual time, in order (ties in the order they were scheduled)."""

    def __init__(self):
        self.t = 0.0
        self.heap = []
        self.seq = 0

    def now(self):
        return self.t

    def at(self, t, fn, *args):
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, fn, args))

    def run(self):
        while self.heap:
            t, _, fn, args = heapq.heappop(self.heap)
            self.t = t
            fn(t, *args)


class _ScriptedConnection:
    """A client and a server that answer at once, on one emulated connection: exchanges
    [(up bytes, down bytes, mark)], each sent when the previous answer has arrived whole
    (the first at the connect, when connect is true, else at start); records when each
    answer's last byte arrived under its mark."""

    def __init__(self, clock, up_link, down_link, rtt, start, connect):
        self.clock = clock
        open_at = start + rtt if connect else start
        self.up = Flow(clock, up_link, rtt, self._server_got, open_at)
        self.down = Flow(clock, down_link, rtt, self._client_got, open_at)
        self.exchanges = []
        self.index = -1
        self.need_up = 0
        self.need_down = 0
        self.done = {}

    def start(self, t, exchanges):
        self.exchanges = list(exchanges)
        self.index = -1
        self._next(t)

    def _next(self, t):
        self.index += 1
        if self.index >= len(self.exchanges):
            return
        up, down, _ = self.exchanges[self.index]
        self.need_up, self.need_down = max(1, up), max(1, down)
        self.up.push(t, bytes(self.need_up))

    def _server_got(self, seg):
        self.need_up -= len(seg)
        if self.need_up == 0:
            self.down.push(self.clock.now(), bytes(self.need_down))

    def _client_got(self, seg):
        self.need_down -= len(seg)
        if self.need_down == 0:
            t = self.clock.now()
            self.done[self.exchanges[self.index][2]] = t
            self._next(t)


def floor(profile, screens, connect=True):
    """What one connection on this link needs for a session's screens, back to back, with
    a client and server that take no time: screens is a list of screens, each a list of
    exchanges (up bytes, down bytes) made one after the other (the first screen's first
    exchange is the TLS handshake's). Returns each screen's time in seconds."""
    rtt, down_bps, up_bps = PROFILES[profile]
    clock = VirtualClock()
    up_link, down_link = Link(up_bps), Link(down_bps)
    conn = _ScriptedConnection(clock, up_link, down_link, rtt, 0.0, connect)
    times = []
    t = 0.0
    for n, exchanges in enumerate(screens):
        marked = [(up, down, (n, i)) for i, (up, down) in enumerate(exchanges)]
        conn.start(t, marked)
        clock.run()
        end = conn.done[(n, len(exchanges) - 1)]
        times.append(end - t)
        t = end
    return times


def parallel(profile, scripts):
    """Connections made at once at t=0 on one link, each with its exchanges; returns each
    one's time to its last answer, in seconds."""
    rtt, down_bps, up_bps = PROFILES[profile]
    clock = VirtualClock()
    up_link, down_link = Link(up_bps), Link(down_bps)
    conns = []
    for exchanges in scripts:
        conn = _ScriptedConnection(clock, up_link, down_link, rtt, 0.0, True)
        conn.start(0.0, [(up, down, i) for i, (up, down) in enumerate(exchanges)])
        conns.append((conn, len(exchanges) - 1))
    clock.run()
    return [conn.done[last] for conn, last in conns]
