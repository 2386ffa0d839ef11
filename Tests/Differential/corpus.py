#!/usr/bin/env python3
"""Writes the differential-test corpus: HTTP/1.1 request streams as JSON Lines.

Each line is {"id": "<stable-name>", "input": "<base64 of the raw bytes>"}; a stream is what
a client would send on one connection (one request, several pipelined ones, or garbage).

The corpus is fully deterministic: no randomness, and ids are derived from names and
structural positions, never from run order, so the same id always means the same bytes.

Three parts:
  * hand-written cases, named descriptively (valid shapes, then malformed / smuggling shapes);
  * `mut/<byte>/<position>/<base>`: one byte (SP, HTAB, CR, LF, NUL, DEL, 0x80) inserted at one
    structural position of a valid base request (positions: rl-* in the request line,
    <field>-* in a field line named after the field, e.g. host-before-colon, eoh-* in the
    empty line ending the head, chunk1-*, last-chunk-*, body-*, end);
  * `trunc/<base>/<n>`: the first n bytes of a valid base request (always incomplete or, where
    the prefix already breaks a rule, rejected).

Usage: corpus.py [OUT.jsonl]   (stdout when OUT is omitted or "-")
"""

from __future__ import annotations

import base64
import json
import sys

CRLF = b"\r\n"


def req(method: bytes = b"GET", target: bytes = b"/", version: bytes = b"HTTP/1.1",
        headers: list[tuple[bytes, bytes]] | None = None, body: bytes = b"",
        host: bytes | None = b"example.com") -> bytes:
    """A request with CRLF line endings; `host` (when not None) becomes the first header."""
    lines = [method + b" " + target + b" " + version]
    if host is not None:
        lines.append(b"Host: " + host)
    for name, value in headers or []:
        lines.append(name + b": " + value if value else name + b":")
    return CRLF.join(lines) + CRLF + CRLF + body


def raw(*lines: bytes, body: bytes = b"") -> bytes:
    """Lines joined by CRLF, closed by an empty line, then the body: for shapes req() can't make."""
    return CRLF.join(lines) + CRLF + CRLF + body


def cl(body: bytes) -> tuple[bytes, bytes]:
    return (b"Content-Length", str(len(body)).encode())


TE_CHUNKED = (b"Transfer-Encoding", b"chunked")


def chunked(*chunks: bytes, trailers: list[bytes] | None = None, ext: bytes = b"") -> bytes:
    out = b""
    for c in chunks:
        out += b"%x" % len(c) + ext + CRLF + c + CRLF
    out += b"0" + CRLF
    for t in trailers or []:
        out += t + CRLF
    return out + CRLF


def post_te(te_value: bytes, body: bytes, *extra: tuple[bytes, bytes], method: bytes = b"POST") -> bytes:
    return req(method, b"/upload", headers=[(b"Transfer-Encoding", te_value), *extra], body=body)


def post_cl(cl_value: bytes, body: bytes, *extra: tuple[bytes, bytes]) -> bytes:
    return req(b"POST", b"/upload", headers=[(b"Content-Length", cl_value), *extra], body=body)


GET = req()
HELLO_CHUNKED = chunked(b"hello")


def valid_cases() -> list[tuple[str, bytes]]:
    c: list[tuple[str, bytes]] = []
    add = lambda name, data: c.append((name, data))  # noqa: E731

    # --- methods and request-targets
    add("get-minimal", GET)
    add("get-path", req(target=b"/v1/products/42"))
    add("get-query", req(target=b"/v1/products?page=2&size=20&sort=-price"))
    add("get-query-empty", req(target=b"/search?"))
    add("get-query-encoded", req(target=b"/search?q=caf%C3%A9+au+lait&x=%2F%3F"))
    add("get-query-slashes-questionmarks", req(target=b"/a?b=/c?d"))
    add("get-path-subdelims", req(target=b"/a;b=c/d,e!$&'()*+=:@-._~"))
    add("get-path-double-slash", req(target=b"//double//slash"))
    add("get-dot-segments", req(target=b"/a/../b/./c"))
    add("get-long-target-4k", req(target=b"/" + b"a" * 4000))
    add("get-absolute-form", req(target=b"http://example.com/v1/products?page=1"))
    add("get-absolute-form-https-port", req(target=b"https://example.com:8443/x", host=b"example.com:8443"))
    add("get-absolute-form-host-differs", req(target=b"http://other.example/x"))
    add("get-absolute-form-no-path", req(target=b"http://example.com"))
    add("get-absolute-form-userinfo", req(target=b"http://user@example.com/"))
    add("get-host-with-port", req(host=b"example.com:8080"))
    add("get-host-ipv6", req(host=b"[::1]:8080"))
    add("get-host-empty", req(host=b""))
    add("head", req(b"HEAD", b"/v1/products"))
    add("head-with-content-length-body", req(b"HEAD", b"/", headers=[cl(b"hello")], body=b"hello"))
    add("post-content-length", req(b"POST", b"/v1/orders", headers=[(b"Content-Type", b"application/json"), cl(b'{"a":1}')], body=b'{"a":1}'))
    add("post-content-length-zero", req(b"POST", b"/v1/orders", headers=[(b"Content-Length", b"0")]))
    add("post-no-body-no-length", req(b"POST", b"/v1/orders"))
    add("post-body-with-crlf", req(b"POST", b"/", headers=[cl(b"a\r\n\r\nb")], body=b"a\r\n\r\nb"))
    add("post-body-binary", req(b"POST", b"/", headers=[cl(bytes(range(256)))], body=bytes(range(256))))
    add("post-body-looks-like-request", req(b"POST", b"/", headers=[cl(GET)], body=GET))
    add("post-body-10k", req(b"POST", b"/", headers=[cl(b"x" * 10000)], body=b"x" * 10000))
    add("post-content-length-leading-zeros", post_cl(b"005", b"hello"))
    add("post-content-length-ows", req(b"POST", b"/", headers=[(b"Content-Length", b" \t5 \t")], body=b"hello"))
    add("put-content-length", req(b"PUT", b"/v1/products/42", headers=[cl(b"hello")], body=b"hello"))
    add("patch-content-length", req(b"PATCH", b"/v1/products/42", headers=[cl(b"{}")], body=b"{}"))
    add("delete", req(b"DELETE", b"/v1/products/42"))
    add("delete-with-body", req(b"DELETE", b"/v1/products/42", headers=[cl(b"why")], body=b"why"))
    add("options-asterisk", req(b"OPTIONS", b"*"))
    add("options-path", req(b"OPTIONS", b"/v1/products"))
    add("trace", req(b"TRACE", b"/"))
    add("connect-authority-form", req(b"CONNECT", b"example.com:443", host=b"example.com:443"))
    add("method-query", req(b"QUERY", b"/v1/products", headers=[(b"Content-Type", b"text/plain"), cl(b"q=1")], body=b"q=1"))
    add("method-propfind", req(b"PROPFIND", b"/dav/"))
    add("method-purge", req(b"PURGE", b"/cache/x"))
    add("method-m-search", req(b"M-SEARCH", b"*"))
    add("method-unknown-foo", req(b"FOO", b"/"))
    add("method-unknown-lowercase-get", req(b"get", b"/"))
    add("method-unknown-mixedcase", req(b"Get", b"/"))
    add("method-unknown-all-tchars", req(b"!#$%&'*+-.^_`|~09AZaz", b"/"))
    add("method-unknown-long", req(b"X" * 64, b"/"))

    # --- versions and connection management
    add("http10-no-host", req(version=b"HTTP/1.0", host=None))
    add("http10-with-host", req(version=b"HTTP/1.0"))
    add("http10-keep-alive-pipelined", req(version=b"HTTP/1.0", host=None, headers=[(b"Connection", b"keep-alive")])
        + req(b"GET", b"/2", version=b"HTTP/1.0", host=None))
    add("http10-keep-alive-post", req(b"POST", b"/", version=b"HTTP/1.0", host=None,
                                      headers=[(b"Connection", b"Keep-Alive"), cl(b"hello")], body=b"hello"))
    add("http10-close-then-data", req(version=b"HTTP/1.0", host=None) + req(b"GET", b"/2", version=b"HTTP/1.0", host=None))
    add("http11-connection-close", req(headers=[(b"Connection", b"close")]))
    add("http11-connection-close-then-data", req(headers=[(b"Connection", b"close")]) + req(target=b"/2"))
    add("http11-connection-keep-alive", req(headers=[(b"Connection", b"keep-alive")]))
    add("http11-connection-list", req(headers=[(b"Connection", b"keep-alive, x-foo"), (b"X-Foo", b"1")]))

    # --- chunked bodies
    add("chunked-simple", post_te(b"chunked", HELLO_CHUNKED))
    add("chunked-multiple", post_te(b"chunked", chunked(b"hello", b" ", b"world", b"x" * 300)))
    add("chunked-empty-body", post_te(b"chunked", chunked()))
    add("chunked-uppercase-hex", post_te(b"chunked", b"A\r\n0123456789\r\n0\r\n\r\n"))
    add("chunked-leading-zeros", post_te(b"chunked", b"0005\r\nhello\r\n000\r\n\r\n"))
    add("chunked-16-hex-digits", post_te(b"chunked", b"0000000000000005\r\nhello\r\n0\r\n\r\n"))
    add("chunked-ext-name", post_te(b"chunked", chunked(b"hello", ext=b";foo")))
    add("chunked-ext-name-value", post_te(b"chunked", chunked(b"hello", ext=b";foo=bar")))
    add("chunked-ext-quoted", post_te(b"chunked", chunked(b"hello", ext=b';foo="a b;c"')))
    add("chunked-ext-multiple", post_te(b"chunked", chunked(b"hello", ext=b";a;b=c;d=\"e\"")))
    add("chunked-ext-on-last-chunk", post_te(b"chunked", b"5\r\nhello\r\n0;last=1\r\n\r\n"))
    add("chunked-ext-bws", post_te(b"chunked", b"5 ;a = b\r\nhello\r\n0\r\n\r\n"))
    add("chunked-trailer", post_te(b"chunked", chunked(b"hello", trailers=[b"X-Checksum: abc"])))
    add("chunked-trailers-multiple", post_te(b"chunked", chunked(b"hello", trailers=[b"X-A: 1", b"X-B: 2", b"X-C:"])))
    add("chunked-trailer-content-length", post_te(b"chunked", chunked(b"hello", trailers=[b"Content-Length: 99"])))
    add("chunked-trailer-transfer-encoding", post_te(b"chunked", chunked(b"hello", trailers=[b"Transfer-Encoding: gzip"])))
    add("chunked-body-with-crlf", post_te(b"chunked", chunked(b"a\r\n0\r\n\r\n")))
    add("chunked-te-uppercase", post_te(b"CHUNKED", HELLO_CHUNKED))
    add("chunked-te-mixedcase", post_te(b"Chunked", HELLO_CHUNKED))
    add("chunked-te-ows", req(b"POST", b"/", headers=[(b"Transfer-Encoding", b" \tchunked\t ")], body=HELLO_CHUNKED))
    add("chunked-te-gzip-chunked", post_te(b"gzip, chunked", HELLO_CHUNKED))
    add("chunked-te-two-fields-gzip-then-chunked", req(b"POST", b"/", headers=[(b"Transfer-Encoding", b"gzip"), TE_CHUNKED], body=HELLO_CHUNKED))
    add("chunked-put", post_te(b"chunked", HELLO_CHUNKED, method=b"PUT"))

    # --- Expect
    add("expect-100-continue-cl", req(b"POST", b"/", headers=[(b"Expect", b"100-continue"), cl(b"hello")], body=b"hello"))
    add("expect-100-continue-chunked", req(b"POST", b"/", headers=[(b"Expect", b"100-continue"), TE_CHUNKED], body=HELLO_CHUNKED))
    add("expect-100-continue-no-body", req(headers=[(b"Expect", b"100-continue")]))

    # --- pipelining
    add("pipelined-2-get", GET + req(target=b"/2"))
    add("pipelined-3-get", GET + req(target=b"/2") + req(target=b"/3"))
    add("pipelined-post-then-get", req(b"POST", b"/", headers=[cl(b"hello")], body=b"hello") + req(target=b"/2"))
    add("pipelined-chunked-then-get", post_te(b"chunked", HELLO_CHUNKED) + req(target=b"/2"))
    add("pipelined-head-then-get", req(b"HEAD", b"/") + req(target=b"/2"))
    add("pipelined-get-post-chunked-delete", GET + post_te(b"chunked", chunked(b"ab", b"cd")) + req(b"DELETE", b"/x"))
    add("pipelined-second-incomplete", GET + b"GET /2 HTTP/1.1\r\nHost: exa")

    # --- header shapes
    add("headers-many-50", req(headers=[(b"X-H%d" % i, b"v%d" % i) for i in range(50)]))
    add("headers-many-100", req(headers=[(b"X-H%d" % i, b"v%d" % i) for i in range(100)]))
    add("header-long-value-8k", req(headers=[(b"X-Long", b"v" * 8000)]))
    add("header-empty-value", req(headers=[(b"X-Empty", b"")]))
    add("header-empty-value-space", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-Empty: "))
    add("header-empty-value-tabs", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-Empty:\t\t"))
    add("header-no-space-after-colon", raw(b"GET / HTTP/1.1", b"Host:example.com", b"X-A:b"))
    add("header-leading-ows", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-A:  \t value"))
    add("header-trailing-ows", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-A: value \t "))
    add("header-both-ows", raw(b"GET / HTTP/1.1", b"Host: \texample.com\t ", b"X-A: \t value \t"))
    add("header-inner-whitespace", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-A: a  b\t\tc"))
    add("header-value-with-colons", req(headers=[(b"X-Time", b"12:34:56")]))
    add("header-value-quoted", req(headers=[(b"X-Q", b'"a, b" ; q=1')]))
    add("header-value-htab-inside", req(headers=[(b"X-Tab", b"a\tb")]))
    add("header-value-obs-text", req(headers=[(b"X-Latin1", b"caf\xe9 \x80\xff")]))
    add("header-name-uppercase", raw(b"GET / HTTP/1.1", b"HOST: example.com", b"X-UPPER: A"))
    add("header-name-lowercase", raw(b"GET / HTTP/1.1", b"host: example.com", b"content-type: text/plain"))
    add("header-name-mixedcase", raw(b"GET / HTTP/1.1", b"hOsT: example.com", b"CoNtEnT-TyPe: text/plain"))
    add("header-name-all-tchars", req(headers=[(b"!#$%&'*+-.^_`|~09AZaz", b"x")]))
    add("header-name-long", req(headers=[(b"X-" + b"n" * 200, b"x")]))
    add("header-duplicate-names", req(headers=[(b"Accept", b"text/plain"), (b"Accept", b"application/json")]))
    add("header-cookie-multiple", req(headers=[(b"Cookie", b"a=1"), (b"Cookie", b"b=2")]))
    add("header-content-length-lowercase", raw(b"POST / HTTP/1.1", b"host: example.com", b"content-length: 5", body=b"hello"))
    add("header-transfer-encoding-lowercase", raw(b"POST / HTTP/1.1", b"host: example.com", b"transfer-encoding: chunked", body=HELLO_CHUNKED))
    add("header-upgrade-websocket-pipelined", req(headers=[(b"Upgrade", b"websocket"), (b"Connection", b"Upgrade")]) + req(target=b"/2"))

    # --- empty lines around requests
    add("empty-stream", b"")
    add("leading-crlf-1", CRLF + GET)
    add("leading-crlf-2", CRLF * 2 + GET)
    add("leading-crlf-5", CRLF * 5 + GET)
    add("only-crlf", CRLF)
    add("trailing-crlf-after-request", GET + CRLF)
    add("crlf-between-pipelined", GET + CRLF + req(target=b"/2"))
    add("crlf-after-cl-body", req(b"POST", b"/", headers=[cl(b"hello")], body=b"hello") + CRLF + req(target=b"/2"))
    return c


def malformed_cases() -> list[tuple[str, bytes]]:
    c: list[tuple[str, bytes]] = []
    add = lambda name, data: c.append((name, data))  # noqa: E731
    smuggled = req(b"GET", b"/admin")

    # --- Content-Length
    add("cl-duplicate-same", post_cl(b"5", b"hello", (b"Content-Length", b"5")))
    add("cl-duplicate-different", post_cl(b"5", b"hello", (b"Content-Length", b"6")))
    add("cl-list-same", post_cl(b"5, 5", b"hello"))
    add("cl-list-different", post_cl(b"5, 6", b"hello"))
    add("cl-list-trailing-comma", post_cl(b"5,", b"hello"))
    add("cl-plus-sign", post_cl(b"+5", b"hello"))
    add("cl-minus-sign", post_cl(b"-5", b"hello"))
    add("cl-minus-zero", post_cl(b"-0", b""))
    add("cl-hex", post_cl(b"0x5", b"hello"))
    add("cl-space-inside", post_cl(b"1 0", b"helloworld"))
    add("cl-tab-inside", post_cl(b"1\t0", b"helloworld"))
    add("cl-decimal-point", post_cl(b"5.0", b"hello"))
    add("cl-letters", post_cl(b"five", b"hello"))
    add("cl-trailing-letter", post_cl(b"5a", b"hello"))
    add("cl-empty", post_cl(b"", b""))
    add("cl-overflow-20-digits", post_cl(b"99999999999999999999", b"hello"))
    add("cl-overflow-uint64-plus-1", post_cl(b"18446744073709551616", b"hello"))
    add("cl-uint64-max", post_cl(b"18446744073709551615", b"hello"))
    add("cl-int64-max-plus-1", post_cl(b"9223372036854775808", b"hello"))
    add("cl-overflow-wraps-to-5", post_cl(b"18446744073709551621", b"hello"))
    add("cl-leading-zeros-20-digits", post_cl(b"00000000000000000005", b"hello"))
    add("cl-body-shorter-incomplete", post_cl(b"10", b"hello"))
    add("cl-body-longer-smuggles", post_cl(b"5", b"hello" + smuggled))
    add("cl-unicode-digit", post_cl("٥".encode(), b"hello"))
    add("cl-on-get-with-body", req(headers=[cl(b"hello")], body=b"hello"))

    # --- Transfer-Encoding, alone and with Content-Length
    add("te-cl", post_te(b"chunked", HELLO_CHUNKED, (b"Content-Length", b"3")))
    add("cl-te", req(b"POST", b"/", headers=[(b"Content-Length", b"3"), TE_CHUNKED], body=HELLO_CHUNKED))
    add("te-cl-smuggle-classic", req(b"POST", b"/", headers=[(b"Content-Length", b"6"), TE_CHUNKED], body=b"0\r\n\r\nG" + smuggled))
    add("te-cl-zero", post_te(b"chunked", HELLO_CHUNKED, (b"Content-Length", b"0")))
    add("te-gzip-only", post_te(b"gzip", b"hello"))
    add("te-chunked-gzip", post_te(b"chunked, gzip", HELLO_CHUNKED))
    add("te-chunked-chunked", post_te(b"chunked, chunked", HELLO_CHUNKED))
    add("te-chunked-two-fields", req(b"POST", b"/", headers=[TE_CHUNKED, TE_CHUNKED], body=HELLO_CHUNKED))
    add("te-unknown", post_te(b"foo", b"hello"))
    add("te-unknown-then-chunked", post_te(b"foo, chunked", HELLO_CHUNKED))
    add("te-identity", post_te(b"identity", b""))
    add("te-identity-chunked", post_te(b"identity, chunked", HELLO_CHUNKED))
    add("te-empty", post_te(b"", b""))
    add("te-empty-list-element", post_te(b"chunked,", HELLO_CHUNKED))
    add("te-xchunked", post_te(b"xchunked", HELLO_CHUNKED))
    add("te-chunked-x", post_te(b"chunkedx", HELLO_CHUNKED))
    add("te-quoted-chunked", post_te(b'"chunked"', HELLO_CHUNKED))
    add("te-chunked-with-param", post_te(b"chunked;q=1", HELLO_CHUNKED))
    add("te-vtab-chunked", post_te(b"\x0bchunked", HELLO_CHUNKED))
    add("te-http10", req(b"POST", b"/", version=b"HTTP/1.0", host=None, headers=[TE_CHUNKED], body=HELLO_CHUNKED))
    add("te-http10-with-cl", req(b"POST", b"/", version=b"HTTP/1.0", host=None, headers=[TE_CHUNKED, (b"Content-Length", b"3")], body=HELLO_CHUNKED))
    add("te-space-before-colon-with-cl", raw(b"POST / HTTP/1.1", b"Host: example.com", b"Transfer-Encoding : chunked", b"Content-Length: 3", body=HELLO_CHUNKED))
    add("te-obs-fold-with-cl", raw(b"POST / HTTP/1.1", b"Host: example.com", b"Transfer-Encoding:", b" chunked", b"Content-Length: 3", body=HELLO_CHUNKED))
    add("te-cl-on-get", req(headers=[TE_CHUNKED, (b"Content-Length", b"3")], body=HELLO_CHUNKED))

    # --- obs-fold, line endings
    add("obs-fold-space", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-Folded: a", b" b"))
    add("obs-fold-tab", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-Folded: a", b"\tb"))
    add("obs-fold-empty-first-line", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-Folded:", b"  b"))
    add("obs-fold-host", raw(b"GET / HTTP/1.1", b"Host:", b" example.com"))
    add("obs-fold-content-length", raw(b"POST / HTTP/1.1", b"Host: example.com", b"Content-Length:", b" 5", body=b"hello"))
    add("ws-line-after-request-line", raw(b"GET / HTTP/1.1", b" Host: example.com"))
    add("ws-line-after-request-line-tab", raw(b"GET / HTTP/1.1", b"\tX-A: b", b"Host: example.com"))
    add("bare-lf-everywhere", GET.replace(CRLF, b"\n"))
    add("bare-lf-request-line", b"GET / HTTP/1.1\nHost: example.com\r\n\r\n")
    add("bare-lf-header-line", b"GET / HTTP/1.1\r\nHost: example.com\nX-A: b\r\n\r\n")
    add("bare-lf-end-of-head", b"GET / HTTP/1.1\r\nHost: example.com\r\n\n")
    add("bare-lf-end-of-head-after-lf", b"GET / HTTP/1.1\r\nHost: example.com\n\n")
    add("bare-lf-leading", b"\n" + GET)
    add("bare-lf-between-pipelined", GET + b"\n" + req(target=b"/2"))
    add("bare-lf-after-chunk-size", post_te(b"chunked", b"5\nhello\r\n0\r\n\r\n"))
    add("bare-lf-after-chunk-data", post_te(b"chunked", b"5\r\nhello\n0\r\n\r\n"))
    add("bare-lf-after-last-chunk", post_te(b"chunked", b"5\r\nhello\r\n0\n\r\n"))
    add("bare-lf-end-of-trailers", post_te(b"chunked", b"5\r\nhello\r\n0\r\n\n"))
    add("bare-lf-in-trailer", post_te(b"chunked", b"5\r\nhello\r\n0\r\nX-T: 1\n\r\n"))
    add("bare-cr-everywhere", GET.replace(CRLF, b"\r"))
    add("bare-cr-request-line", b"GET / HTTP/1.1\rHost: example.com\r\n\r\n")
    add("bare-cr-in-value", req(headers=[(b"X-A", b"a\rb")]))
    add("bare-cr-end-of-value", b"GET / HTTP/1.1\r\nHost: example.com\r\nX-A: a\r\r\n\r\n")
    add("bare-cr-in-name", req(headers=[(b"X-\rA", b"b")]))
    add("bare-cr-end-of-head", b"GET / HTTP/1.1\r\nHost: example.com\r\n\r")
    add("bare-cr-end-of-head-then-data", b"GET / HTTP/1.1\r\nHost: example.com\r\n\rX")
    add("bare-cr-after-chunk-size", post_te(b"chunked", b"5\rhello\r\n0\r\n\r\n"))
    add("crcrlf-end-of-request-line", b"GET / HTTP/1.1\r\r\nHost: example.com\r\n\r\n")

    # --- bytes in names and values
    for byte, label in [(0x00, "nul"), (0x01, "soh"), (0x08, "bs"), (0x0B, "vt"), (0x0C, "ff"),
                        (0x1B, "esc"), (0x1F, "us"), (0x7F, "del")]:
        b = bytes([byte])
        add(f"value-{label}-middle", req(headers=[(b"X-A", b"a" + b + b"b")]))
        add(f"value-{label}-leading", req(headers=[(b"X-A", b + b"b")]))
        add(f"value-{label}-trailing", req(headers=[(b"X-A", b"a" + b)]))
        add(f"name-{label}", req(headers=[(b"X-" + b + b"A", b"b")]))
    add("value-nul-in-host", req(host=b"example.com\x00.evil"))
    add("value-c1-0x85", req(headers=[(b"X-A", b"a\x85b")]))
    add("value-0xff", req(headers=[(b"X-A", b"\xff")]))
    add("value-utf8", req(headers=[(b"X-A", "naïve ☃".encode())]))
    add("name-space-inside", req(headers=[(b"X A", b"b")]))
    add("name-htab-inside", req(headers=[(b"X\tA", b"b")]))
    add("name-8bit", req(headers=[(b"X-\xe9", b"b")]))
    add("name-0x80", req(headers=[(b"X-\x80", b"b")]))
    add("name-lf-inside", b"GET / HTTP/1.1\r\nHost: example.com\r\nX-\nA: b\r\n\r\n")
    add("ws-before-colon-space", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-A : b"))
    add("ws-before-colon-tab", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-A\t: b"))
    add("ws-before-colon-host", raw(b"GET / HTTP/1.1", b"Host : example.com"))
    add("ws-before-colon-content-length", raw(b"POST / HTTP/1.1", b"Host: example.com", b"Content-Length : 5", body=b"hello"))
    for label, name in [("paren", b"Fo(o"), ("close-paren", b"Fo)o"), ("slash", b"Foo/bar"),
                        ("at", b"Fo@o"), ("quote", b'Fo"o'), ("brace", b"Fo{o"), ("comma", b"Fo,o"),
                        ("semicolon", b"Fo;o"), ("equals", b"Fo=o"), ("question", b"Fo?o"),
                        ("bracket", b"Fo[o"), ("backslash", b"Fo\\o"), ("lt", b"Fo<o")]:
        add(f"name-non-token-{label}", req(headers=[(name, b"b")]))
    add("name-empty", raw(b"GET / HTTP/1.1", b"Host: example.com", b": value"))
    add("name-empty-colon-only", raw(b"GET / HTTP/1.1", b"Host: example.com", b":"))
    add("header-line-without-colon", raw(b"GET / HTTP/1.1", b"Host: example.com", b"NoColonHere"))
    add("header-line-only-spaces", raw(b"GET / HTTP/1.1", b"Host: example.com", b"   "))

    # --- Host
    add("host-missing-http11", req(host=None))
    add("host-missing-http11-absolute-form", req(target=b"http://example.com/", host=None))
    add("host-missing-http11-post", req(b"POST", b"/", host=None, headers=[cl(b"hello")], body=b"hello"))
    add("host-duplicate-same", req(headers=[(b"Host", b"example.com")]))
    add("host-duplicate-different", req(headers=[(b"Host", b"evil.example")]))
    add("host-duplicate-case", raw(b"GET / HTTP/1.1", b"Host: example.com", b"host: example.com"))
    add("host-duplicate-http10", req(version=b"HTTP/1.0", headers=[(b"Host", b"evil.example")]))
    add("host-duplicate-one-empty", req(headers=[(b"Host", b"")]))
    add("host-list-value", req(host=b"example.com, evil.example"))
    add("host-with-space", req(host=b"example.com evil"))
    add("host-with-slash", req(host=b"example.com/evil"))
    add("host-with-userinfo", req(host=b"user@example.com"))
    add("host-missing-in-second-pipelined", GET + req(target=b"/2", host=None))

    # --- chunk sizes and chunk framing
    add("chunk-size-negative", post_te(b"chunked", b"-5\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-plus", post_te(b"chunked", b"+5\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-0x-prefix", post_te(b"chunked", b"0x5\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-17-hex-digits", post_te(b"chunked", b"00000000000000005\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-17-hex-digits-last-chunk", post_te(b"chunked", b"5\r\nhello\r\n00000000000000000\r\n\r\n"))
    add("chunk-size-overflow-wraps-to-5", post_te(b"chunked", b"10000000000000005\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-16-f", post_te(b"chunked", b"ffffffffffffffff\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-empty", post_te(b"chunked", b"\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-non-hex", post_te(b"chunked", b"g\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-non-hex-suffix", post_te(b"chunked", b"5g\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-leading-space", post_te(b"chunked", b" 5\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-trailing-space", post_te(b"chunked", b"5 \r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-trailing-tab", post_te(b"chunked", b"5\t\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-underscore", post_te(b"chunked", b"0_5\r\nhello\r\n0\r\n\r\n"))
    add("chunk-size-decimal-point", post_te(b"chunked", b"5.0\r\nhello\r\n0\r\n\r\n"))
    add("chunk-ext-without-semicolon", post_te(b"chunked", b"5 foo\r\nhello\r\n0\r\n\r\n"))
    add("chunk-ext-nul", post_te(b"chunked", b"5;a=\x00\r\nhello\r\n0\r\n\r\n"))
    add("chunk-ext-bare-lf", post_te(b"chunked", b"5;a=b\nhello\r\n0\r\n\r\n"))
    add("chunk-ext-bare-cr", post_te(b"chunked", b"5;a=b\rc\r\nhello\r\n0\r\n\r\n"))
    add("chunk-ext-del", post_te(b"chunked", b"5;a=\x7f\r\nhello\r\n0\r\n\r\n"))
    add("chunk-ext-empty-name", post_te(b"chunked", b"5;\r\nhello\r\n0\r\n\r\n"))
    add("chunk-data-missing-crlf", post_te(b"chunked", b"5\r\nhelloX\r\n0\r\n\r\n"))
    add("chunk-data-missing-crlf-next-size", post_te(b"chunked", b"5\r\nhello0\r\n\r\n"))
    add("chunk-data-cr-only", post_te(b"chunked", b"5\r\nhello\r0\r\n\r\n"))
    add("chunk-data-longer-than-size", post_te(b"chunked", b"3\r\nhello\r\n0\r\n\r\n"))
    add("chunk-last-missing-incomplete", post_te(b"chunked", b"5\r\nhello\r\n"))
    add("chunk-last-missing-final-crlf", post_te(b"chunked", b"5\r\nhello\r\n0\r\n"))
    add("chunk-trailer-obs-fold", post_te(b"chunked", b"5\r\nhello\r\n0\r\nX-T: a\r\n b\r\n\r\n"))
    add("chunk-trailer-non-token-name", post_te(b"chunked", b"5\r\nhello\r\n0\r\nX(T: a\r\n\r\n"))
    add("chunk-trailer-nul-value", post_te(b"chunked", b"5\r\nhello\r\n0\r\nX-T: a\x00b\r\n\r\n"))
    add("chunk-trailer-ws-before-colon", post_te(b"chunked", b"5\r\nhello\r\n0\r\nX-T : a\r\n\r\n"))
    add("chunk-trailer-no-colon", post_te(b"chunked", b"5\r\nhello\r\n0\r\nXT\r\n\r\n"))
    add("chunk-smuggle-after-body", post_te(b"chunked", b"5\r\nhello\r\n0\r\n\r\n" + smuggled))

    # --- request line
    for label, target in [("space", b"/a b"), ("htab", b"/a\tb"), ("nul", b"/a\x00b"),
                          ("soh", b"/a\x01b"), ("del", b"/a\x7fb"), ("0x80", b"/a\x80b"),
                          ("0xff", b"/a\xffb"), ("vt", b"/a\x0bb"), ("cr", b"/a\rb")]:
        add(f"target-{label}", req(target=target))
    add("target-fragment", req(target=b"/a#frag"))
    add("target-empty", b"GET  HTTP/1.1\r\nHost: example.com\r\n\r\n")
    add("target-missing", b"GET HTTP/1.1\r\nHost: example.com\r\n\r\n")
    add("target-relative", req(target=b"products"))
    add("target-asterisk-on-get", req(target=b"*"))
    add("target-backslash", req(target=b"/a\\b"))
    add("target-braces-pipes", req(target=b"/a{b}|c^d`e"))
    add("target-utf8", req(target="/café".encode()))
    add("version-missing", b"GET /\r\nHost: example.com\r\n\r\n")
    add("version-missing-no-headers", b"GET /\r\n\r\n")
    add("version-http09", req(version=b"HTTP/0.9"))
    add("version-http2", req(version=b"HTTP/2.0"))
    add("version-http2-prior-knowledge-preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    add("version-http12", req(version=b"HTTP/1.2"))
    add("version-http19", req(version=b"HTTP/1.9"))
    add("version-http3", req(version=b"HTTP/3.0"))
    add("version-http20-no-host", req(version=b"HTTP/2.0", host=None))
    add("version-lowercase", req(version=b"http/1.1"))
    add("version-mixedcase", req(version=b"Http/1.1"))
    add("version-no-minor", req(version=b"HTTP/1"))
    add("version-two-digit-minor", req(version=b"HTTP/1.10"))
    add("version-leading-zero-major", req(version=b"HTTP/01.1"))
    add("version-two-digit-major", req(version=b"HTTP/11.1"))
    add("version-no-slash", req(version=b"HTTP1.1"))
    add("version-extra-token", req(version=b"HTTP/1.1 x"))
    add("version-trailing-space", req(version=b"HTTP/1.1 "))
    add("version-trailing-htab", req(version=b"HTTP/1.1\t"))
    add("version-letters", req(version=b"HTTP/a.b"))
    add("version-nul", req(version=b"HTTP/1.1\x00"))
    add("reqline-double-space-after-method", b"GET  / HTTP/1.1\r\nHost: example.com\r\n\r\n")
    add("reqline-double-space-before-version", b"GET /  HTTP/1.1\r\nHost: example.com\r\n\r\n")
    add("reqline-htab-separators", b"GET\t/\tHTTP/1.1\r\nHost: example.com\r\n\r\n")
    add("reqline-leading-space", b" GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
    add("reqline-leading-htab", b"\tGET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
    add("reqline-only-method", b"GET\r\nHost: example.com\r\n\r\n")
    add("reqline-empty-then-headers", b"\r\nHost: example.com\r\n\r\n")
    add("reqline-garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
    add("reqline-response-line", b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    for label, method in [("paren", b"GE(T"), ("slash", b"GE/T"), ("at", b"GE@T"), ("colon", b"GE:T"),
                          ("comma", b"GE,T"), ("quote", b'GE"T'), ("8bit", b"G\xc9T"), ("nul", b"GE\x00T"),
                          ("del", b"GE\x7fT"), ("brace", b"GE{T")]:
        add(f"method-non-token-{label}", req(method=method))
    add("method-empty", b" / HTTP/1.1\r\nHost: example.com\r\n\r\n")

    # --- truncated streams (incomplete)
    post = req(b"POST", b"/", headers=[cl(b"hello")], body=b"hello")
    chunk = post_te(b"chunked", chunked(b"hello", trailers=[b"X-T: 1"]))
    add("truncated-in-method", b"GE")
    add("truncated-in-target", b"GET /v1/pro")
    add("truncated-before-version", b"GET / ")
    add("truncated-in-version", b"GET / HTTP/1.")
    add("truncated-after-request-line-cr", b"GET / HTTP/1.1\r")
    add("truncated-after-request-line", b"GET / HTTP/1.1\r\n")
    add("truncated-in-header-name", b"GET / HTTP/1.1\r\nHo")
    add("truncated-after-colon", b"GET / HTTP/1.1\r\nHost:")
    add("truncated-in-header-value", b"GET / HTTP/1.1\r\nHost: exam")
    add("truncated-before-final-crlf", b"GET / HTTP/1.1\r\nHost: example.com\r\n")
    add("truncated-after-final-cr", b"GET / HTTP/1.1\r\nHost: example.com\r\n\r")
    add("truncated-cl-no-body", post[: post.index(b"hello")])
    add("truncated-cl-mid-body", post[:-2])
    add("truncated-chunked-no-body", chunk[: chunk.index(b"\r\n\r\n") + 4])
    add("truncated-chunked-in-size", chunk[: chunk.index(b"\r\n\r\n") + 4] + b"5")
    add("truncated-chunked-in-data", chunk[: chunk.index(b"hello") + 3])
    add("truncated-chunked-after-data", chunk[: chunk.index(b"hello") + 5])
    add("truncated-chunked-before-last-chunk", chunk[: chunk.index(b"hello") + 7])
    add("truncated-chunked-in-trailer", chunk[:-5])
    add("truncated-chunked-before-final-crlf", chunk[:-2])
    add("truncated-second-pipelined-head", GET + b"GET /2 HTTP/1.1\r\nHo")
    add("truncated-second-pipelined-body", GET + post[:-1])
    add("truncated-leading-crlf-only-cr", b"\r")
    add("truncated-after-leading-crlf", CRLF + b"GET")
    return c


# --------------------------------------------------------------------------------------------
# Mutations: structural positions of a request, and single-byte insertions there.

INSERTED = [(b" ", "sp"), (b"\t", "htab"), (b"\r", "cr"), (b"\n", "lf"), (b"\x00", "nul"),
            (b"\x7f", "del"), (b"\x80", "0x80")]


def positions(data: bytes) -> list[tuple[str, int]]:
    """Named structural offsets of one CRLF-framed request (valid base requests only)."""
    out: list[tuple[str, int]] = []
    head_end = data.index(b"\r\n\r\n")
    lines = data[:head_end].split(b"\r\n")
    rl = lines[0]
    sp1 = rl.index(b" ")
    sp2 = rl.index(b" ", sp1 + 1)
    target = rl[sp1 + 1: sp2]
    out += [("rl-start", 0), ("rl-in-method", 1), ("rl-after-method", sp1), ("rl-target-start", sp1 + 1),
            ("rl-in-target", sp1 + 1 + max(1, len(target) // 2) if len(target) > 1 else sp1 + 2),
            ("rl-after-target", sp2), ("rl-version-start", sp2 + 1), ("rl-in-version", sp2 + 1 + 5),
            ("rl-end", len(rl)), ("rl-between-cr-lf", len(rl) + 1)]
    offset = len(rl) + 2
    for line in lines[1:]:
        colon = line.index(b":")
        h = line[:colon].decode("ascii").lower()  # positions are named after the field: "host-before-colon"
        value_start = colon + 1
        while value_start < len(line) and line[value_start] in b" \t":
            value_start += 1
        out += [(f"{h}-start", offset), (f"{h}-in-name", offset + 1), (f"{h}-before-colon", offset + colon),
                (f"{h}-after-colon", offset + colon + 1)]
        if value_start < len(line):
            out += [(f"{h}-value-start", offset + value_start),
                    (f"{h}-in-value", offset + value_start + max(1, (len(line) - value_start) // 2))]
        out += [(f"{h}-end", offset + len(line)), (f"{h}-between-cr-lf", offset + len(line) + 1)]
        offset += len(line) + 2
    out += [("eoh-start", head_end + 2), ("eoh-between-cr-lf", head_end + 3)]
    body = data[head_end + 4:]
    if body:
        out.append(("body-start", head_end + 4))
        if b"Transfer-Encoding: chunked" in data[:head_end]:
            # chunk-size line, chunk data, last chunk, trailers
            p = head_end + 4
            size_line_end = data.index(b"\r\n", p)
            size = int(data[p:size_line_end].split(b";")[0], 16)
            out += [("chunk1-after-size", size_line_end), ("chunk1-size-between-cr-lf", size_line_end + 1),
                    ("chunk1-in-data", size_line_end + 2 + size // 2),
                    ("chunk1-after-data", size_line_end + 2 + size),
                    ("chunk1-data-between-cr-lf", size_line_end + 3 + size)]
            last = size_line_end + 4 + size
            out += [("last-chunk-after-zero", last + 1), ("last-chunk-between-cr-lf", last + 2),
                    ("end-between-cr-lf", len(data) - 1)]
        else:
            out.append(("body-middle", head_end + 4 + len(body) // 2))
    out.append(("end", len(data)))
    return out


BASES: list[tuple[str, bytes]] = [
    ("get", GET),
    ("get-query", req(target=b"/v1/products?page=2&sort=-price")),
    ("get-absolute", req(target=b"http://example.com/v1/x")),
    ("get-3-headers", req(headers=[(b"Accept", b"application/json"), (b"User-Agent", b"t/1")])),
    ("get-empty-value", req(headers=[(b"X-Empty", b"")])),
    ("get-lowercase-names", raw(b"GET / HTTP/1.1", b"host: example.com", b"accept: */*")),
    ("get-ows-value", raw(b"GET / HTTP/1.1", b"Host: example.com", b"X-A:  a b ")),
    ("head", req(b"HEAD", b"/v1/products")),
    ("options-asterisk", req(b"OPTIONS", b"*")),
    ("delete", req(b"DELETE", b"/v1/products/42")),
    ("query-method", req(b"QUERY", b"/search", headers=[cl(b"q=1")], body=b"q=1")),
    ("http10", req(version=b"HTTP/1.0", host=None)),
    ("http10-keep-alive", req(version=b"HTTP/1.0", host=None, headers=[(b"Connection", b"keep-alive")])),
    ("post-cl", req(b"POST", b"/v1/orders", headers=[cl(b"hello")], body=b"hello")),
    ("patch-cl", req(b"PATCH", b"/v1/products/42", headers=[cl(b"{}")], body=b"{}")),
    ("post-chunked", post_te(b"chunked", HELLO_CHUNKED)),
    ("post-chunked-ext-trailer", req(b"POST", b"/", headers=[TE_CHUNKED], body=chunked(b"hello", ext=b";a=b", trailers=[b"X-T: 1"]))),
    ("post-expect-100", req(b"POST", b"/", headers=[(b"Expect", b"100-continue"), cl(b"hello")], body=b"hello")),
    ("post-cl-zero", req(b"POST", b"/", headers=[(b"Content-Length", b"0")])),
    ("get-connection-close", req(headers=[(b"Connection", b"close")])),
]

TRUNCATED_BASES = ["get-3-headers", "post-cl", "post-chunked-ext-trailer", "http10"]


def mutation_cases() -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    for base_name, data in BASES:
        seen: set[bytes] = {data}
        for pos_name, offset in positions(data):
            for byte, byte_name in INSERTED:
                mutated = data[:offset] + byte + data[offset:]
                if mutated in seen:
                    continue
                seen.add(mutated)
                out.append((f"mut/{byte_name}/{pos_name}/{base_name}", mutated))
    bases = dict(BASES)
    for base_name in TRUNCATED_BASES:
        data = bases[base_name]
        for n in range(1, len(data)):
            out.append((f"trunc/{base_name}/{n:03d}", data[:n]))
    # Pipelined: the same edits inside the second request of a pair, so errors after a good
    # message are covered (the first message must still be reported).
    second = req(b"POST", b"/2", headers=[cl(b"hi")], body=b"hi")
    for pos_name, offset in positions(second):
        for byte, byte_name in INSERTED:
            out.append((f"mut/{byte_name}/m2-{pos_name}/pipelined", GET + second[:offset] + byte + second[offset:]))
    return out


def all_cases() -> list[tuple[str, bytes]]:
    cases = valid_cases() + malformed_cases() + mutation_cases()
    ids = [name for name, _ in cases]
    duplicates = {name for name in ids if ids.count(name) > 1} if len(set(ids)) != len(ids) else set()
    if duplicates:
        raise SystemExit(f"corpus.py: duplicate case ids: {sorted(duplicates)}")
    return cases


def main(argv: list[str]) -> int:
    out_path = argv[1] if len(argv) > 1 else "-"
    lines = [json.dumps({"id": name, "input": base64.b64encode(data).decode("ascii")}) for name, data in all_cases()]
    text = "\n".join(lines) + "\n"
    if out_path == "-":
        sys.stdout.write(text)
    else:
        with open(out_path, "w", encoding="ascii") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
