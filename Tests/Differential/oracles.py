#!/usr/bin/env python3
"""Runs two independent HTTP/1.1 request parsers over every corpus stream, as a server would.

  oracles.py CORPUS.jsonl OUT_DIR      writes OUT_DIR/llhttp.jsonl and OUT_DIR/h11.jsonl

Oracles:
  llhttp  httptools.HttpRequestParser (llhttp 9.x, default strict settings: no leniency flags set)
  h11     h11.Connection(h11.SERVER)

Each output line:
  {"id": str, "verdict": "accept" | "reject" | "incomplete",
   "messages": [{"method": str, "target": str, "version": str,
                 "headers": [[name, value], ...], "body": base64}, ...],
   "error": str | null}

Normalisation (the same for both oracles, and what the gateway probe must write):
  * method, target, header names and values are the bytes decoded as latin-1;
  * header names are lowercased (h11 only reports lowercased names; llhttp reports them as
    sent), in received order, duplicates kept as separate entries;
  * header values are trimmed of leading/trailing SP and HTAB (RFC 9110 §5.5: OWS is not part
    of the field value; h11 trims both ends, llhttp only the leading OWS);
  * trailer fields are discarded (h11 reports them on EndOfMessage, llhttp through on_header
    after the head), body is the de-chunked body;
  * version is the parser's "major.minor" ("1.0", "1.1", and whatever else it accepted).

Verdicts: "reject" if the parser raised at any point (messages = those completed before);
"incomplete" if the stream ended with no error but with a message or a partial head pending;
otherwise "accept".

Connection handling:
  * llhttp: all bytes in one feed_data(); the parser itself continues with the next pipelined
    request. On HttpParserUpgrade (a request with "Upgrade" + "Connection: upgrade", or
    CONNECT) a CONNECT ends the stream there (the rest is tunnel data, ignored); for any other
    method the upgrade is treated as declined and the bytes after the request are fed again.
  * h11: all bytes in one receive_data(), then next_event() until NEED_DATA/PAUSED; after each
    EndOfMessage the server sends a dummy "200, Content-Length: 0" response and calls
    start_next_cycle() when both sides are DONE. A 200 to CONNECT switches protocols in h11:
    the stream ends there as for llhttp. receive_data(b"") (EOF) is never sent.
"""

from __future__ import annotations

import base64
import json
import os
import sys

import h11
import httptools

OWS = b" \t"


def message(method: bytes, target: bytes, version: str, headers: list[tuple[bytes, bytes]], body: bytes) -> dict:
    return {
        "method": method.decode("latin-1"),
        "target": target.decode("latin-1"),
        "version": version,
        "headers": [[n.decode("latin-1").lower(), v.strip(OWS).decode("latin-1")] for n, v in headers],
        "body": base64.b64encode(bytes(body)).decode("ascii"),
    }


# --------------------------------------------------------------------------------------------
# llhttp (httptools)

class _LLHTTPCollector:
    def __init__(self) -> None:
        self.parser: httptools.HttpRequestParser | None = None
        self.messages: list[dict] = []
        self.in_message = False
        self._reset()

    def _reset(self) -> None:
        self.url = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.headers_done = False
        self.body = bytearray()
        self.method = b""
        self.version = ""

    # httptools callbacks
    def on_message_begin(self) -> None:
        self._reset()
        self.in_message = True

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self.headers_done:  # after the head these are chunked trailers: discarded
            self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.headers_done = True
        assert self.parser is not None
        self.method = self.parser.get_method()
        self.version = self.parser.get_http_version()

    def on_body(self, body: bytes) -> None:
        self.body += body

    def on_message_complete(self) -> None:
        self.messages.append(message(self.method, self.url, self.version, self.headers, self.body))
        self.in_message = False


def run_llhttp(data: bytes) -> dict:
    collector = _LLHTTPCollector()
    parser = httptools.HttpRequestParser(collector)
    collector.parser = parser
    error = None
    remaining = data
    while True:
        try:
            parser.feed_data(remaining)
            break
        except httptools.HttpParserUpgrade as upgrade:
            offset = upgrade.args[0]
            if collector.messages and collector.messages[-1]["method"] == "CONNECT" or collector.in_message:
                remaining = b""
                break
            remaining = remaining[offset:]
            if not remaining:
                break
        except httptools.HttpParserError as e:  # includes the Invalid{Method,URL,Status} subclasses
            error = f"{type(e).__name__}: {e}"
            break
    if error is not None:
        verdict = "reject"
    elif collector.in_message:
        verdict = "incomplete"
    else:
        verdict = "accept"
    return {"verdict": verdict, "messages": collector.messages, "error": error}


# --------------------------------------------------------------------------------------------
# h11

def run_h11(data: bytes) -> dict:
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(data)
    messages: list[dict] = []
    current = None
    body = bytearray()
    error = None
    switched = False
    try:
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA or event is h11.PAUSED:
                break
            if isinstance(event, h11.Request):
                current = event
                body = bytearray()
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                assert current is not None
                messages.append(message(current.method, current.target, current.http_version.decode("latin-1"),
                                        list(current.headers), body))
                current = None
                conn.send(h11.Response(status_code=200, headers=[(b"Content-Length", b"0")]))
                if conn.our_state is h11.SWITCHED_PROTOCOL:  # a 200 to CONNECT: tunnel from here on
                    switched = True
                    break
                conn.send(h11.EndOfMessage())
                if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
                    conn.start_next_cycle()
            elif isinstance(event, h11.ConnectionClosed):
                break
    except h11.RemoteProtocolError as e:
        error = f"RemoteProtocolError: {e}"
    if error is not None:
        verdict = "reject"
    elif switched:
        verdict = "accept"
    elif current is not None or conn.trailing_data[0]:
        verdict = "incomplete"
    else:
        verdict = "accept"
    return {"verdict": verdict, "messages": messages, "error": error}


ORACLES = {"llhttp": run_llhttp, "h11": run_h11}


def read_corpus(path: str) -> list[tuple[str, bytes]]:
    cases = []
    with open(path, encoding="ascii") as f:
        for line in f:
            if line.strip():
                obj = json.loads(line)
                cases.append((obj["id"], base64.b64decode(obj["input"])))
    return cases


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    cases = read_corpus(argv[1])
    os.makedirs(argv[2], exist_ok=True)
    for name, run in ORACLES.items():
        with open(os.path.join(argv[2], f"{name}.jsonl"), "w", encoding="ascii") as out:
            for case_id, data in cases:
                out.write(json.dumps({"id": case_id, **run(data)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
