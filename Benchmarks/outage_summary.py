#!/usr/bin/env python3
"""The medians of Benchmarks/outage.sh's rounds, per server, and the gateway's ratios to nginx.

    outage_summary.py ROUNDS.jsonl

Each line of ROUNDS.jsonl is one round's outage.py JSON. Prints every round's p99 beside the
other server's, then each figure's median over the rounds (and the ratio gateway / nginx when
both ran).
"""

import json
import statistics
import sys


def main():
    rounds = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    servers = {}
    for result in rounds:
        servers.setdefault(result["server"], []).append(result)
    count = max(len(results) for results in servers.values())
    print("p99 ms per round:", " | ".join(
        " ".join(f"{name} {results[i]['p99_ms']}" for name, results in servers.items() if i < len(results)) for i in range(count)))

    def median(name, key):
        return round(statistics.median(r[key] for r in servers[name]), 4)

    if "nginx" not in servers or "gateway" not in servers:
        for name in servers:
            figures = {key: median(name, key) for key, value in servers[name][0].items() if isinstance(value, (int, float))}
            print(f"{name} medians over {len(servers[name])} rounds:", json.dumps(figures))
        return

    def ratio(key):
        g, n = median("gateway", key), median("nginx", key)
        return f"{g} vs {n} ({g / n:.2f})" if n else f"{g} vs {n}"

    rounds_met = sum(1 for g, n in zip(servers["gateway"], servers["nginx"]) if g["p99_ms"] <= n["p99_ms"])
    print(f"medians over {count} rounds, gateway vs nginx:")
    print("origin requests per 1,000 client requests: overall", ratio("origin_per_1000"),
          "| during the outage", ratio("outage_origin_per_1000"), "| outside it", ratio("outside_origin_per_1000"))
    print("p99 ms: every answer", ratio("p99_ms"), f"(no worse in {rounds_met} of {count} rounds)", "| list pages", ratio("list_p99_ms"))
    print("answers that waited for the origin (>= 40 ms): share", ratio("waited_share"), "| p50 ms", ratio("waited_p50_ms"),
          "| p90 ms", ratio("waited_p90_ms"), "| details alone: p50 ms", ratio("waited_detail_p50_ms"), "| p90 ms", ratio("waited_detail_p90_ms"))
    print("server CPU seconds:", ratio("server_cpu_s"), "| origin image requests:", ratio("origin_image_requests"))
    print("5xx during the outage to pages answered before it:", ratio("outage_5xx_known_pages"),
          "| any 5xx during it:", ratio("outage_5xx"), "| after it:", ratio("after_5xx"))
    print("5xx to known pages during the outage, per round: gateway", [r["outage_5xx_known_pages"] for r in servers["gateway"]],
          "nginx", [r["outage_5xx_known_pages"] for r in servers["nginx"]])


if __name__ == "__main__":
    main()
