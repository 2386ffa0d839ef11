"""The fault soak's HTTP/2 over TLS client (Benchmarks/soak.py uses it), with python-h2.

One connection as a phone's app holds it: TLS with ALPN h2, requests multiplexed, every DATA
frame acknowledged as it is read. Blocking, one thread per connection. Also the two clients that
misbehave: one that asks and never reads (its windows stay shut), and one that resets streams
while their answers arrive.
"""

import socket
import ssl
import time
import urllib.parse

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

# What a failed exchange raises (the soak counts it as a connection error and reconnects).
ERRORS = (OSError, h2.exceptions.ProtocolError, h2.exceptions.StreamClosedError)


def tls_context(protocol="h2"):
    """TLS 1.2 or later offering only `protocol` by ALPN; the soak's throwaway certificate is
    not checked."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols([protocol])
    return context


def request_path(path):
    """A thumbnail may be an absolute URL: its path and query, as :path wants them."""
    if not path.startswith(("http://", "https://")):
        return path
    parts = urllib.parse.urlsplit(path)
    return parts.path + ("?" + parts.query if parts.query else "")


class Connection:
    """One HTTP/2 connection over TLS. Not thread-safe: one thread uses it."""

    def __init__(self, base, stream_window=None, timeout=15):
        parts = urllib.parse.urlsplit(base)
        self.authority = "%s:%d" % (parts.hostname, parts.port)
        raw = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        self.sock = tls_context().wrap_socket(raw, server_hostname="localhost")
        if self.sock.selected_alpn_protocol() != "h2":
            self.sock.close()
            raise ConnectionError("ALPN chose %r, not h2" % self.sock.selected_alpn_protocol())
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.h2.initiate_connection()
        if stream_window is not None:
            self.h2.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: stream_window})
        self.flush()

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def start(self, method, path, body=None, headers=None):
        """Sends one request; returns its stream id."""
        stream = self.h2.get_next_available_stream_id()
        fields = [(":method", method), (":scheme", "https"), (":authority", self.authority), (":path", request_path(path))]
        fields += [(name.lower(), value) for name, value in (headers or {}).items()]
        self.h2.send_headers(stream, fields, end_stream=body is None)
        if body is not None:
            self.h2.send_data(stream, body, end_stream=True)
        self.flush()
        return stream

    def many(self, requests, reset_on_headers=()):
        """Sends `requests` (method, path, body, headers) at once and reads their answers:
        a list of (status, etag, body) in request order. A stream in `reset_on_headers` (by
        index) is reset with CANCEL as soon as its response head arrives; its entry is
        ("reset", None, b"") (or "ended before the reset" when the whole answer came in the
        same read: a small stream window keeps answers coming in pieces). Raises one of ERRORS when the connection fails or ends first."""
        streams = [self.start(*request) for request in requests]
        index = {stream: n for n, stream in enumerate(streams)}
        results = [[None, None, bytearray()] for _ in streams]
        open_streams = set(streams)
        cancel = {streams[n] for n in reset_on_headers}
        while open_streams:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the gateway closed the connection")
            for event in self.h2.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    fields = dict(event.headers)
                    result = results[index[event.stream_id]]
                    result[0], result[1] = int(fields[":status"]), fields.get("etag")
                    if event.stream_id in cancel:
                        try:
                            self.h2.reset_stream(event.stream_id, h2.errors.ErrorCodes.CANCEL)
                            result[0] = "reset"
                            open_streams.discard(event.stream_id)
                        except h2.exceptions.StreamClosedError:
                            result[0] = "ended before the reset"
                elif isinstance(event, h2.events.DataReceived):
                    self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    if event.stream_id in open_streams:
                        results[index[event.stream_id]][2] += event.data
                elif isinstance(event, h2.events.StreamEnded):
                    open_streams.discard(event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    if event.stream_id in open_streams:
                        results[index[event.stream_id]][0] = "reset by gateway"
                        open_streams.discard(event.stream_id)
                elif isinstance(event, h2.events.ConnectionTerminated):
                    raise ConnectionError("GOAWAY %s" % event.error_code)
            self.flush()
        return [(status, etag, bytes(body)) for status, etag, body in results]

    def call(self, method, path, body=None, headers=None):
        """One request: (status, etag, body)."""
        return self.many([(method, path, body, headers)])[0]

    def close(self):
        try:
            self.h2.close_connection()
            self.flush()
        except ERRORS:
            pass
        self.sock.close()


def never_reads(base, paths, seconds):
    """A client with a 1 KiB stream window that asks for `paths` and then reads nothing for
    `seconds`, then reads what came meanwhile: with `seconds` past the gateway's write
    deadline, its answers stalled on shut windows were reset (RST_STREAM CANCEL; those that
    fit the window ended) or the connection ended. Returns "streams reset by the gateway", "ended by the gateway" or
    "still waiting" (nothing was given up: a defect when `seconds` is past the deadline)."""
    conn = Connection(base, stream_window=1024)
    try:
        streams = {conn.start("GET", path, headers={"accept-encoding": "gzip"}) for path in paths}
        time.sleep(seconds)
        conn.sock.settimeout(1)
        # Answers that fit the window end; the others must have been reset.
        finished = set()
        try:
            while finished != streams:
                data = conn.sock.recv(65536)
                if not data:
                    return "ended by the gateway"
                for event in conn.h2.receive_data(data):
                    if isinstance(event, (h2.events.StreamReset, h2.events.StreamEnded)):
                        finished.add(event.stream_id)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        return "ended by the gateway"
        except (socket.timeout, ssl.SSLWantReadError):
            pass
        return "streams reset by the gateway" if finished == streams else "still waiting"
    except ERRORS:
        return "ended by the gateway"
    finally:
        conn.sock.close()
