"""Reads client.py's session lines (JSON) and prints Benchmarks/screen's results.

    report.py line < one-session.json       one line for a session, as it ends
    report.py table results.jsonl           the medians, the goal, the timelines
"""
import json
import statistics
import sys

SCREENS = ["first screen", "rest of page 1", "page 2", "detail"]
TITLES = ["first screen (list+12)", "rest of page 1 (8)", "page 2 (list+20)", "detail (+3 images)"]
GOAL_MS = 600
LAID_OUT_GOAL_MS = 300


def line(session):
    s = session["screens"]
    ms = " / ".join(f"{x['ms']:.0f}" for x in s)
    kb = " / ".join(f"{x['down'] / 1000:.0f}" for x in s)
    conns = len(session["connections"])
    return (f"{session['profile']} {session['proto']:<2} run {session['run']} {session['cache']:<4}: "
            f"{ms} ms, {kb} KB, {conns} connection{'s' if conns > 1 else ''}")


def each_group(profiles, groups):
    """(profile, protocol, its name, cache state, sessions) of every group measured, in the
    tables' order."""
    for profile in profiles:
        for proto, name in (("h2", "HTTP/2"), ("h1", "HTTP/1.1")):
            for cache in ("cold", "warm"):
                if (profile, proto, cache) in groups:
                    yield profile, proto, name, cache, groups[(profile, proto, cache)]


def median_session(sessions):
    """The session whose first screen is the median one."""
    ordered = sorted(sessions, key=lambda s: s["screens"][0]["ms"])
    return ordered[(len(ordered) - 1) // 2]


def table(path):
    sessions = [json.loads(x) for x in open(path) if x.strip()]
    groups = {}
    for s in sessions:
        groups.setdefault((s["profile"], s["proto"], s["cache"]), []).append(s)
    med = {}
    for key, group in groups.items():
        med[key] = [
            {k: statistics.median(g["screens"][i][k] for g in group) for k in ("ms", "down", "floor_ms")}
            for i in range(len(SCREENS))
        ]
    runs = max(len(g) for g in groups.values())
    print()
    print(f"Screen times through the gateway over the emulated link, medians of {runs} runs: "
          f"ms, KB down (1 KB = 1000 bytes of TLS on the wire), and the floor in ms for those bytes on one connection")
    print(f"{'':20}" + "".join(f"| {t:<24}" for t in TITLES))
    print(f"{'link protocol cache':<20}" + "| {:>6} {:>6} {:>7}  ".format("ms", "KB", "floor") * len(TITLES))
    profiles = sorted({k[0] for k in med}, key=lambda p: ["4G", "3G"].index(p) if p in ("4G", "3G") else 9)
    for profile in profiles:
        for proto, name in (("h2", "HTTP/2"), ("h1", "HTTP/1.1")):
            for cache in ("cold", "warm"):
                rows = med.get((profile, proto, cache))
                if rows is None:
                    continue
                cells = "".join(f"| {r['ms']:>6,.0f} {r['down'] / 1000:>6.0f} {r['floor_ms']:>7,.0f}  " for r in rows)
                print(f"{profile:<4} {name:<9}{cache:<5} " + cells)
    print()
    print("First image complete, ms from the screen's start (medians): when the screen first shows a picture")
    print(f"{'':20}" + "".join(f"| {t:<24}" for t in TITLES))
    for profile, proto, name, cache, group in each_group(profiles, groups):
        firsts = [statistics.median(min(r["last"] for r in g["screens"][i]["requests"] if r["kind"].startswith("w"))
                                    for g in group) for i in range(len(SCREENS))]
        print(f"{profile:<4} {name:<9}{cache:<5} " + "".join(f"| {x:>6,.0f}{'':18}" for x in firsts))
    print()

    print("Laid out, ms from the screen's start (medians): the list answer complete (with include=placeholders it")
    print("carries every image's size and preview, so the screen has its final layout); then the cold session's")
    print("complete screen against the warm one's")
    print(f"{'':20}| {'first screen':<14}| {'page 2':<14}| complete cold / warm")
    for profile, proto, name, cache, group in each_group(profiles, groups):
        laid = [statistics.median(next(r["last"] for r in g["screens"][i]["requests"] if r["kind"] == "list") for g in group)
                for i in (0, 2)]
        ratio = ""
        if cache == "cold" and (profile, proto, "warm") in med:
            cold, warm = med[(profile, proto, "cold")][0]["ms"], med[(profile, proto, "warm")][0]["ms"]
            ratio = f"{cold:,.0f} / {warm:,.0f} ms: {100 * (cold - warm) / warm:+.1f}%"
        print(f"{profile:<4} {name:<9}{cache:<5} | {laid[0]:>12,.0f} | {laid[1]:>12,.0f} | {ratio}")
    print()

    warm4 = groups.get(("4G", "h2", "warm"))
    if warm4:
        laid = statistics.median(next(r["last"] for r in g["screens"][0]["requests"] if r["kind"] == "list") for g in warm4)
        print(f"goal: first screen laid out over 4G, warm, HTTP/2 at most {LAID_OUT_GOAL_MS} ms: {laid:,.0f} ms: "
              f"{'met' if laid <= LAID_OUT_GOAL_MS else 'NOT MET'}")
    for profile in profiles:
        if (profile, "h2", "cold") in med and (profile, "h2", "warm") in med:
            cold, warm = med[(profile, "h2", "cold")][0]["ms"], med[(profile, "h2", "warm")][0]["ms"]
            print(f"goal: first screen complete over {profile}, HTTP/2, cold within 10% of warm: {cold:,.0f} against {warm:,.0f} ms "
                  f"({100 * (cold - warm) / warm:+.1f}%): {'met' if cold <= 1.1 * warm else 'NOT MET'}")

    first = med.get(("4G", "h2", "warm"))
    if first:
        ms = first[0]["ms"]
        verdict = "met" if ms <= GOAL_MS else "NOT MET"
        print(f"goal: first screen over 4G, warm, HTTP/2 at most {GOAL_MS} ms: {ms:,.0f} ms: {verdict} "
              f"(the floor for its {first[0]['down'] / 1000:.0f} KB on one connection is {first[0]['floor_ms']:,.0f} ms)")
    slower = []
    compared = 0
    for (profile, proto, cache), rows in sorted(med.items()):
        if proto != "h2" or (profile, "h1", cache) not in med:
            continue
        for i, (a, b) in enumerate(zip(rows, med[(profile, "h1", cache)])):
            compared += 1
            if a["ms"] > b["ms"]:
                slower.append(f"{profile} {cache} {SCREENS[i]}: {a['ms']:,.1f} > {b['ms']:,.1f} ms "
                              f"(+{a['ms'] - b['ms']:,.1f} ms, +{100 * (a['ms'] - b['ms']) / b['ms']:.1f}%)")
    verdict = "met" if not slower else f"NOT MET in {len(slower)} of {compared}: " + "; ".join(slower)
    print(f"goal: no screen slower over HTTP/2 than over HTTP/1.1 (4G and 3G, cold and warm medians): {verdict}")

    for profile, cache in (("4G", "warm"),):
        for proto, name in (("h2", "HTTP/2"), ("h1", "HTTP/1.1")):
            group = groups.get((profile, proto, cache))
            if not group:
                continue
            s = median_session(group)
            screen = s["screens"][0]
            print()
            print(f"{profile} {cache} {name}, first screen of run {s['run']} ({screen['ms']:,.0f} ms): "
                  f"each request, ms from the screen's start")
            print(f"  {'what':<5} {'conn':>4} {'stream':>6} {'sent':>7} {'1st byte':>8} {'last byte':>9} {'bytes':>7}  cache")
            for r in screen["requests"]:
                stream = "" if r["stream"] is None else r["stream"]
                print(f"  {r['kind']:<5} {r['conn']:>4} {stream:>6} {r['sent']:>7.1f} {r['first']:>8.1f} "
                      f"{r['last']:>9.1f} {r['bytes']:>7}  {r['cache']}")
            done = sorted(r["last"] for r in screen["requests"] if r["kind"] != "list")
            print(f"  images complete at (sorted): {', '.join(f'{x:.0f}' for x in done)}")
            if proto == "h2":
                h2 = s.get("h2", {})
                frames = [f for f in h2.get("frames", []) if f[0] <= screen["ms"] + 0.05]
                order = []
                for _, sid, _ in frames:
                    if not order or order[-1] != sid:
                        order.append(sid)
                print(f"  DATA frames: {len(frames)}, largest {max(n for _, _, n in frames):,} bytes; "
                      f"streams in the order their DATA came: {' '.join(map(str, order))}")
                print(f"  server SETTINGS: {h2.get('server_settings')}; WINDOW_UPDATEs from the server: {h2.get('window_updates')}")
            conns = s["connections"]
            print(f"  connections: {len(conns)}; " + ", ".join(
                f"#{c['id']} {c['alpn']} {c['version']}{' resumed' if c['resumed'] else ''} handshake {c['handshake_ms']:.0f} ms, "
                f"{c['handshake_down']} B down" for c in conns[:2]) + (" ..." if len(conns) > 2 else ""))


if __name__ == "__main__":
    if sys.argv[1] == "line":
        print(line(json.loads(sys.stdin.read())))
    else:
        table(sys.argv[2])
