"""Turns the alternation part of scripts/bench-gateway (toolwire, then the rmcp floor, a fresh
process of each per pair) into the table of BENCHMARKS.md: req/s and CPU time per call of each
pair, the ratio per pair, and over all pairs the ratio of the requests served and the median of
the pair ratios. Checks the 0.9x target on the ratio over all pairs.

Usage: python pairs.py PAIRS.txt
"""

from __future__ import annotations

import statistics
import sys

from report import fields  # the same key=value reader as the main table




def main(path):
    pairs = {}
    for line in open(path, encoding="utf-8"):
        words = line.split()
        pairs.setdefault(words[0], {})[words[1]] = fields(line)
    rows = [
        (label, pair["toolwire"], pair["rmcp-floor"])
        for label, pair in pairs.items()
        if "toolwire" in pair and "rmcp-floor" in pair
    ]
    if not rows:
        print("no complete pair", file=sys.stderr)
        return 1
    print("\n| pair | toolwire req/s | floor req/s | ratio | toolwire CPU µs/call | floor CPU µs/call |")
    print("|---|---|---|---|---|---|")
    ratios, errors = [], 0
    for label, ours, floor in rows:
        ratio = float(ours["rps"]) / float(floor["rps"])
        ratios.append(ratio)
        errors += int(ours.get("errors", 0)) + int(floor.get("errors", 0))
        print(
            f"| {label} | {float(ours['rps']):.0f} | {float(floor['rps']):.0f} | {ratio:.2f}x "
            f"| {ours.get('cpu_us', '?')} | {floor.get('cpu_us', '?')} |"
        )
    served = sum(int(ours["requests"]) for _, ours, _ in rows)
    floor_served = sum(int(floor["requests"]) for _, _, floor in rows)
    overall = served / floor_served
    print(
        f"| all | {served} requests | {floor_served} requests | {overall:.2f}x "
        f"(median of pairs {statistics.median(ratios):.2f}x) | | |"
    )
    verdict = "met" if overall >= 0.9 and errors == 0 else "NOT met"
    print(f"\ncatalog_get >= 0.9x the rmcp floor over all pairs: {overall:.2f}x, {errors} errors: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
