"""Turns scripts/bench-gateway's raw lines into the tables of BENCHMARKS.md and checks the
targets of the gateway benchmark.

Usage: python report.py RESULTS.txt
"""

from __future__ import annotations

import re
import statistics
import sys

MIB = 1024


def fields(line):
    return dict(re.findall(r"(\w+)=([\w.\-]+)", line))


def rounds(path):
    """The loads of alternated rounds (labels `direct1`, `through1`, …), by label without its
    round number, and the median of a field of a label's loads."""
    runs = {}
    for line in open(path, encoding="utf-8"):
        label = re.sub(r"\d+$", "", line.split()[0])
        runs.setdefault(label, []).append(fields(line))

    def median(label, key):
        return statistics.median(float(r[key]) for r in runs[label])

    return runs, median


def main(path):
    rows, memory = {}, {}
    for line in open(path, encoding="utf-8"):
        words = line.split()
        if words[0] == "memory":
            memory[words[1]] = fields(line)
        else:
            rows[(words[0], words[1])] = fields(line)
    servers = ["toolwire", "rmcp-floor", "python-sdk", "typescript-sdk"]
    loads = ["catalog_get", "catalog_search", "stateless_get", "catalog_export", "app_get", "app_search"]
    # Each app-tool load answers the bytes of a native load: what the outside answer adds.
    app_loads = [("app_get", "catalog_get", "195-byte product"), ("app_search", "catalog_search", "20 KB list")]
    print("\n| load | server | req/s | p50 ms | p99 ms | peak RSS MiB | CPU µs/call | errors |")
    print("|---|---|---|---|---|---|---|---|")
    for load in loads:
        for server in servers:
            r = rows.get((load, server))
            if r is None:
                continue
            print(
                f"| {load} | {server} | {float(r['rps']):.0f} | {float(r['p50_ms']):.2f} | "
                f"{float(r['p99_ms']):.2f} | {int(r['peak_kib']) / MIB:.1f} | "
                f"{r.get('cpu_us', '—')} | {r['errors']} |"
            )
    # Loads every server answers (the app-tool loads are toolwire's alone).
    shared = [load for load in loads if any((load, server) in rows for server in servers[1:])]
    print("\n| load | toolwire ÷ floor | toolwire ÷ Python | toolwire ÷ TypeScript |")
    print("|---|---|---|---|")
    checks = []
    for load in shared:
        t = rows.get((load, "toolwire"))
        if t is None:
            continue
        ratios = []
        for server in servers[1:]:
            other = rows.get((load, server))
            ratios.append(f"{float(t['rps']) / float(other['rps']):.2f}×" if other else "—")
        print(f"| {load} | " + " | ".join(ratios) + " |")
    # The same ratios from the server's CPU time per call: steadier than req/s on a shared
    # machine (a server that gets less of its core answers fewer calls, not costlier ones).
    print("\n| load | by CPU per call: toolwire ÷ floor | toolwire ÷ Python | toolwire ÷ TypeScript |")
    print("|---|---|---|---|")
    for load in shared:
        t = rows.get((load, "toolwire"))
        if t is None or not float(t.get("cpu_us", 0)):
            continue
        ratios = []
        for server in servers[1:]:
            other = rows.get((load, server))
            cpu = float(other.get("cpu_us", 0)) if other else 0
            ratios.append(f"{cpu / float(t['cpu_us']):.2f}×" if cpu else "—")
        print(f"| {load} | " + " | ".join(ratios) + " |")

    def ratio(load, server):
        t, o = rows.get((load, "toolwire")), rows.get((load, server))
        return float(t["rps"]) / float(o["rps"]) if t and o else None

    def p99_below(load, server):
        t, o = rows.get((load, "toolwire")), rows.get((load, server))
        return float(t["p99_ms"]) < float(o["p99_ms"]) if t and o else None

    # Only the loads that ran are judged (BENCH_ONLY=memory runs none of them).
    checks = [] if rows.get(("catalog_get", "toolwire")) is None else [
        ("catalog_get ≥ 5× Python", (ratio("catalog_get", "python-sdk") or 0) >= 5),
        ("catalog_get ≥ 2× TypeScript", (ratio("catalog_get", "typescript-sdk") or 0) >= 2),
        ("catalog_get ≥ 0.9× rmcp floor in this one pair (the alternation below decides)", (ratio("catalog_get", "rmcp-floor") or 0) >= 0.9),
        ("catalog_get p99 below Python", bool(p99_below("catalog_get", "python-sdk"))),
        ("catalog_get p99 below TypeScript", bool(p99_below("catalog_get", "typescript-sdk"))),
        ("catalog_search ≥ 5× Python", (ratio("catalog_search", "python-sdk") or 0) >= 5),
        ("catalog_search ≥ 2× TypeScript", (ratio("catalog_search", "typescript-sdk") or 0) >= 2),
    ]
    apps = [(app, native, what) for app, native, what in app_loads
            if rows.get((app, "toolwire")) and rows.get((native, "toolwire"))]
    if apps:
        print("\n| answer | native CPU µs/call | app tool CPU µs/call | app ÷ native |")
        print("|---|---|---|---|")
    for app, native, what in apps:
        a, n = float(rows[(app, "toolwire")]["cpu_us"]), float(rows[(native, "toolwire")]["cpu_us"])
        print(f"| {what} | {n:.1f} | {a:.1f} | {a / n:.2f}× |")
        checks.append((f"{app}: gateway CPU per call ≤ 1.5× {native}'s", a <= 1.5 * n))
    export = rows.get(("catalog_export", "toolwire"))
    if export:
        checks.append(("catalog_export at 4 connections: peak RSS ≤ 100 MiB", int(export["peak_kib"]) <= 100 * MIB))
    if memory:
        print("\n| memory | base RSS MiB | peak RSS MiB | extra MiB | small call p99 ms |")
        print("|---|---|---|---|---|")
        for name, label in [("one15", "one 15 MiB answer"), ("eight15", "eight 15 MiB answers at once"), ("one50", "one 48 MiB (50 MB) answer")]:
            m = memory.get(name)
            if not m:
                continue
            base, peak = int(m["base_kib"]) / MIB, int(m["peak_kib"]) / MIB
            p99 = m.get("p99_ms", "—")
            print(f"| {label} | {base:.1f} | {peak:.1f} | {peak - base:.1f} | {p99} |")
        if "one15" in memory:
            m = memory["one15"]
            checks.append(("one 15 MiB answer: extra RSS ≤ 64 MiB", (int(m["peak_kib"]) - int(m["base_kib"])) <= 64 * MIB))
        if "eight15" in memory:
            m = memory["eight15"]
            checks.append(("eight 15 MiB answers: extra RSS ≤ 512 MiB", (int(m["peak_kib"]) - int(m["base_kib"])) <= 512 * MIB))
            checks.append(("small call p99 during them ≤ 50 ms", float(m["p99_ms"]) <= 50))
        if "one50" in memory:
            m = memory["one50"]
            payload = int(m["answer_bytes"]) / 1024
            checks.append(("50 MB offloaded result: peak RSS ≤ 3× payload", int(m["peak_kib"]) <= 3 * payload))
    print("\n| target | met |")
    print("|---|---|")
    for name, met in checks:
        print(f"| {name} | {'yes' if met else 'NO'} |")


if __name__ == "__main__":
    main(sys.argv[1])
