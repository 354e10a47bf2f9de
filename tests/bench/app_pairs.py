"""Turns the app-tool alternation of scripts/bench-gateway (in one toolwire process, a native
load then the app-tool load answering the same bytes, BENCH_PAIRS times per answer) into the
table of BENCHMARKS.md: the gateway's CPU time per call of each, the ratio per pair, and per
answer the median of the pair ratios and the ratio over all calls. Checks the 1.5x target on
the median.

The same rounds load the rmcp floor alone and the floor making the app tool's exchange with the
same app before it answers. What that exchange adds to the floor is the least an outside answer
costs a gateway on hyper; set against toolwire's native call, it is the part of the app tool's
extra cost no reading, checking or rendering of the answer accounts for, and what is left is
toolwire's own. Per answer, the ratio an app tool would reach if toolwire's own reading cost
nothing, and what 1.5x leaves for it.

Usage: python app_pairs.py APP_PAIRS.txt
"""

from __future__ import annotations

import re
import statistics
import sys

ANSWERS = [("get", "195-byte product"), ("search", "20 KB list")]


def fields(line):
    return dict(re.findall(r"(\w+)=([\w.\-]+)", line))


def per_call(loads):
    """CPU µs per call over all of `loads` (each weighed by its calls)."""
    calls = sum(int(load["requests"]) for load in loads)
    return sum(float(load["cpu_us"]) * int(load["requests"]) for load in loads) / calls


def main(path):
    loads = {}
    for line in open(path, encoding="utf-8"):
        label = line.split()[0]
        match = re.fullmatch(r"(native|app|floor|hop)_(get|search)(\d+)", label)
        if match:
            kind, answer, pair = match.groups()
            loads.setdefault(answer, {}).setdefault(pair, {})[kind] = fields(line)
    print("\n| answer | pair | native CPU µs/call | app tool CPU µs/call | app ÷ native |")
    print("|---|---|---|---|---|")
    verdicts, parts, errors = [], [], 0
    for answer, what in ANSWERS:
        pairs = [p for _, p in sorted(loads.get(answer, {}).items(), key=lambda kv: int(kv[0]))
                 if "native" in p and "app" in p]
        if not pairs:
            continue
        ratios = []
        for i, pair in enumerate(pairs, 1):
            native, app = float(pair["native"]["cpu_us"]), float(pair["app"]["cpu_us"])
            ratios.append(app / native)
            errors += int(pair["native"]["errors"]) + int(pair["app"]["errors"])
            print(f"| {what} | {i} | {native:.1f} | {app:.1f} | {app / native:.2f}× |")
        median = statistics.median(ratios)
        overall = per_call([p["app"] for p in pairs]) / per_call([p["native"] for p in pairs])
        print(f"| {what} | all | | | median {median:.2f}×, over all calls {overall:.2f}× |")
        verdicts.append((what, median))
        floors = [p for p in pairs if "floor" in p and "hop" in p]
        if floors:
            parts.append((what, pairs, floors))
    if parts:
        print("\n| answer | rmcp floor CPU µs/call | floor with the exchange | exchange alone |"
              " toolwire native | toolwire app tool | exchange ÷ native | toolwire's own ÷ native |")
        print("|---|---|---|---|---|---|---|---|")
    bounds = []
    for what, pairs, floors in parts:
        floor = per_call([p["floor"] for p in floors])
        hop = per_call([p["hop"] for p in floors])
        native = per_call([p["native"] for p in pairs])
        app = per_call([p["app"] for p in pairs])
        errors += sum(int(p[k]["errors"]) for p in floors for k in ("floor", "hop"))
        exchange = hop - floor
        print(f"| {what} | {floor:.1f} | {hop:.1f} | {exchange:.1f} | {native:.1f} | {app:.1f} |"
              f" {exchange / native:.2f}× | {(app - native - exchange) / native:.2f}× |")
        bounds.append((what, 1 + exchange / native, 0.5 * native - exchange, app - native - exchange))
    if bounds:
        print()
    for what, bound, room, own in bounds:
        print(f"{what}: with toolwire's own reading free, app ÷ native {bound:.2f}×; 1.5× leaves it"
              f" {room:.1f} µs a call, it takes {own:.1f} µs")
    print()
    for what, median in verdicts:
        met = "met" if median <= 1.5 and errors == 0 else "NOT met"
        print(f"{what}: app tool CPU per call <= 1.5x native (median of pairs): {median:.2f}x, {errors} errors: {met}")
    return 0 if verdicts else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
