#!/usr/bin/env python3
"""Compares the gateway parser's verdicts and messages with each oracle's.

  compare.py CORPUS.jsonl GATEWAY.jsonl LLHTTP.jsonl H11.jsonl [--allow known-differences.json]
             [--max-diffs N] [--show-allowed] [--show-stale]

Oracle names come from the file names (llhttp.jsonl -> "llhttp"). For every corpus case and
every oracle the gateway line must equal the oracle line in verdict and messages (method,
target, version, headers as lowercased [name, value] pairs in order, base64 body). "error"
and any extra key (the gateway may add "status") are reported but never compared.

Oracle-specific normalisation: h11 lowercases Transfer-Encoding values on receipt, so that
header's value is compared case-insensitively against h11.

A disagreement is allowed when known-differences.json lists the case: keys are case ids or
id prefixes ending in "*" (the exact id wins, then the longest prefix); values are
  {"oracles": ["llhttp", "h11"], "why": "<RFC clause>", "expect": "reject"}
"expect" is optional, a verdict or a list of verdicts: when present the gateway's verdict must
be one of them, even if it then agrees with the oracles (this catches a gateway that got
lenient). Keys starting with "_" are comments.

Exit status: 0 when every disagreement is listed and every expectation is met; 1 on any
unlisted disagreement, unmet expectation, or a corpus case missing from any output; 2 on usage
or input errors.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from collections import Counter


def load_jsonl(path: str, what: str) -> dict[str, dict]:
    rows: dict[str, dict] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                    rows[obj["id"]] = obj
                except (ValueError, KeyError, TypeError) as e:
                    raise SystemExit(f"compare: {path}:{number}: bad {what} line: {e}")
    except OSError as e:
        print(f"compare: cannot read {what} file: {e}", file=sys.stderr)
        sys.exit(2)
    return rows


class Allowlist:
    def __init__(self, path: str | None):
        self.exact: dict[str, dict] = {}
        self.prefixes: list[tuple[str, dict]] = []
        self.used: Counter[str] = Counter()
        if path is None:
            return
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
        if not isinstance(raw, dict):
            raise SystemExit(f"compare: {path}: expected a JSON object")
        for key, entry in raw.items():
            if key.startswith("_"):
                continue
            if not isinstance(entry, dict) or not isinstance(entry.get("oracles"), list) or "why" not in entry:
                raise SystemExit(f"compare: {path}: entry {key!r} needs \"oracles\" (list) and \"why\"")
            expect = entry.get("expect")
            if isinstance(expect, str):
                entry = {**entry, "expect": [expect]}
            elif expect is not None and not (isinstance(expect, list) and expect):
                raise SystemExit(f"compare: {path}: entry {key!r} has a bad \"expect\"")
            if not set(entry.get("expect") or []) <= {"accept", "reject", "incomplete"}:
                raise SystemExit(f"compare: {path}: entry {key!r} has a bad \"expect\"")
            if key.endswith("*"):
                self.prefixes.append((key[:-1], {**entry, "key": key}))
            else:
                self.exact[key] = {**entry, "key": key}
        self.prefixes.sort(key=lambda p: -len(p[0]))

    def lookup(self, case_id: str) -> dict | None:
        if case_id in self.exact:
            return self.exact[case_id]
        for prefix, entry in self.prefixes:
            if case_id.startswith(prefix):
                return entry
        return None

    def keys(self) -> list[str]:
        return list(self.exact) + [entry["key"] for _, entry in self.prefixes]


def normalised(result: dict, oracle: str) -> tuple:
    """The compared part of a result line, normalised for comparison with `oracle`."""
    messages = []
    for m in result.get("messages") or []:
        headers = []
        for name, value in m.get("headers", []):
            name = name.lower()
            if oracle == "h11" and name == "transfer-encoding":
                value = value.lower()
            headers.append((name, value))
        messages.append((m.get("method"), m.get("target"), m.get("version"), tuple(headers), m.get("body", "")))
    return result.get("verdict"), tuple(messages)


FIELDS = ("method", "target", "version", "headers", "body")


def short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(result: dict) -> str:
    parts = [f"{result.get('verdict')}", f"{len(result.get('messages') or [])} msg"]
    if result.get("status") is not None:
        parts.append(str(result["status"]))
    if result.get("error"):
        parts.append(short(str(result["error"]), 60))
    return ", ".join(parts)


def first_difference(gateway: dict, oracle: dict, name: str) -> str:
    g_verdict, g_messages = normalised(gateway, name)
    o_verdict, o_messages = normalised(oracle, name)
    if len(g_messages) != len(o_messages) or g_verdict != o_verdict:
        return f"gateway [{describe(gateway)}] vs {name} [{describe(oracle)}]"
    for index, (gm, om) in enumerate(zip(g_messages, o_messages)):
        for field, gv, ov in zip(FIELDS, gm, om):
            if gv != ov:
                if field == "body":
                    gv = base64.b64decode(gv)
                    ov = base64.b64decode(ov)
                elif field == "headers":
                    only_g = [h for h in gv if h not in ov]
                    only_o = [h for h in ov if h not in gv]
                    if only_g or only_o:
                        gv, ov = only_g, only_o
                return f"message {index} {field}: gateway {short(repr(gv))} vs {name} {short(repr(ov))}"
    return "no difference"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Differential comparison of HTTP/1.1 request parsing.")
    parser.add_argument("corpus")
    parser.add_argument("gateway")
    parser.add_argument("oracles", nargs="+", help="one JSONL file per oracle, named <oracle>.jsonl")
    parser.add_argument("--allow", help="known-differences.json")
    parser.add_argument("--max-diffs", type=int, default=40, help="unlisted disagreements to print (default 40)")
    parser.add_argument("--show-allowed", action="store_true", help="also print each allowed difference")
    parser.add_argument("--show-stale", action="store_true", help="list allowlist keys that matched no disagreement")
    args = parser.parse_args(argv[1:])

    corpus = load_jsonl(args.corpus, "corpus")
    gateway = load_jsonl(args.gateway, "gateway")
    oracles = {os.path.basename(p).split(".")[0]: load_jsonl(p, "oracle") for p in args.oracles}
    allow = Allowlist(args.allow)

    failures = 0
    missing = [cid for cid in corpus if cid not in gateway]
    if missing:
        failures += len(missing)
        print(f"compare: gateway output lacks {len(missing)} of {len(corpus)} cases, e.g. {', '.join(missing[:5])}")
    for name, rows in oracles.items():
        lacking = [cid for cid in corpus if cid not in rows]
        if lacking:
            failures += len(lacking)
            print(f"compare: {name} output lacks {len(lacking)} cases, e.g. {', '.join(lacking[:5])}")
    extra = [cid for cid in gateway if cid not in corpus]
    if extra:
        print(f"compare: note: gateway output has {len(extra)} ids not in the corpus, e.g. {', '.join(extra[:5])}")

    stats = {name: Counter() for name in oracles}
    unlisted: list[str] = []
    allowed_lines: list[str] = []
    unmet: list[str] = []
    matched_keys: set[str] = set()
    verdicts = Counter()

    for cid in corpus:
        g = gateway.get(cid)
        if g is None:
            continue
        verdicts[g.get("verdict")] += 1
        entry = allow.lookup(cid)
        if entry is not None and entry.get("expect") and g.get("verdict") not in entry["expect"]:
            unmet.append(f"  {cid}: gateway [{describe(g)}], {entry['key']} expects {' or '.join(entry['expect'])}"
                         f" ({short(entry['why'], 80)})")
        for name, rows in oracles.items():
            o = rows.get(cid)
            if o is None:
                continue
            if normalised(g, name) == normalised(o, name):
                stats[name]["agree"] += 1
            elif entry is not None and name in entry["oracles"]:
                stats[name]["allowed"] += 1
                matched_keys.add(entry["key"])
                if args.show_allowed:
                    allowed_lines.append(f"  {cid} ({name}, {entry['key']}): {first_difference(g, o, name)}")
            else:
                stats[name]["unlisted"] += 1
                unlisted.append(f"  {cid}: {first_difference(g, o, name)}")

    failures += len(unlisted) + len(unmet)
    checked = len(corpus) - len(missing)
    print(f"differential: {len(corpus)} cases; gateway verdicts: "
          + ", ".join(f"{count} {verdict}" for verdict, count in sorted(verdicts.items(), key=lambda vc: str(vc[0]))))
    width = max(len(n) for n in oracles)
    print(f"  {'oracle':<{width}}  {'agree':>6}  {'allowed':>7}  {'unlisted':>8}")
    for name in oracles:
        s = stats[name]
        print(f"  {name:<{width}}  {s['agree']:>6}  {s['allowed']:>7}  {s['unlisted']:>8}")
    if allowed_lines:
        print("allowed differences:")
        print("\n".join(allowed_lines))
    if unmet:
        print(f"unmet expectations ({len(unmet)}): listed in the allowlist with \"expect\", gateway said otherwise")
        if args.max_diffs > 0:
            print("\n".join(unmet[: args.max_diffs]))
        if len(unmet) > args.max_diffs:
            print(f"  … and {len(unmet) - args.max_diffs} more")
    if unlisted:
        print(f"unlisted disagreements ({len(unlisted)}):")
        if args.max_diffs > 0:
            print("\n".join(unlisted[: args.max_diffs]))
        if len(unlisted) > args.max_diffs:
            print(f"  … and {len(unlisted) - args.max_diffs} more (--max-diffs N)")
    stale = [k for k in allow.keys() if k not in matched_keys]
    if stale:
        print(f"note: {len(stale)} allowlist keys matched no disagreement"
              + (":\n  " + "\n  ".join(stale) if args.show_stale else " (--show-stale lists them)"))
    if failures:
        print(f"differential: FAILED ({len(unlisted)} unlisted disagreements, {len(unmet)} unmet expectations, "
              f"{len(missing)} missing cases; {checked} cases checked)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
