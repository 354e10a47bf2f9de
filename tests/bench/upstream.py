"""Reads scripts/bench-gateway's upstream rounds (the TypeScript SDK server called directly and
through toolwire, and toolwire's native tool) and prints the medians, the ratios and the
targets of issue #26: through toolwire at least 0.8x the direct req/s, at most 0.5 ms added to
the median latency. nginx in front of the same server, loaded in the same rounds, gives the same
figures for a proxy that passes the bytes on unread: the yardstick of the layout. The server's
own CPU per call, directly and behind each proxy, gives what a proxy may cost per call for 0.8x
the direct req/s on the core it shares with the server.

Usage: python upstream.py UPSTREAM.txt
"""

from __future__ import annotations

import sys

from report import rounds  # the same key=value reader as the main table


def budget(runs, median):
    """On a core the proxy shares with a saturated server, req/s is one over the two processes'
    CPU per call: the server's CPU per call directly and behind each proxy, and what a proxy may
    cost per call for 0.8x the direct req/s, given what the server costs behind it."""
    behind = {
        label: median(label, "peer_cpu_us")
        for label in ["nginx", "through", "through_stateless"]
        if label in runs and all("peer_cpu_us" in r for r in runs[label])
    }
    if "direct" not in runs or not behind:
        return
    direct = median("direct", "cpu_us")
    print("\n| server CPU µs/call | directly | behind nginx | behind toolwire (session) |"
          " behind toolwire (stateless) |")
    print("|---|---|---|---|---|")
    cells = " | ".join(f"{behind[label]:.1f}" if label in behind else "—"
                       for label in ["nginx", "through", "through_stateless"])
    print(f"| TypeScript SDK server | {direct:.1f} | {cells} |")
    print("\n| proxy | its CPU µs/call | at most, for 0.8× the direct req/s | within |")
    print("|---|---|---|---|")
    for label, what in [("nginx", "nginx"), ("through", "toolwire (session)"),
                        ("through_stateless", "toolwire (stateless)")]:
        if label not in behind:
            continue
        allowed = direct / 0.8 - behind[label]
        cost = median(label, "cpu_us")
        print(f"| {what} | {cost:.1f} | {allowed:.1f} | {'yes' if cost <= allowed else 'no'} |")


def main(path):
    runs, median = rounds(path)

    print("\n| load | req/s | p50 ms | p99 ms | CPU µs/call of the proxy (toolwire, nginx) | rounds | errors |")
    print("|---|---|---|---|---|---|---|")
    for label, what in [
        ("direct", "TypeScript SDK server, directly (session)"),
        ("nginx", "through nginx, a plain reverse proxy (session)"),
        ("through", "through toolwire (session)"),
        ("through_stateless", "through toolwire (stateless 2026-07-28)"),
        ("native", "toolwire's own catalog_get (session)"),
    ]:
        if label not in runs:
            continue
        cpu = "—" if label == "direct" else f"{median(label, 'cpu_us'):.1f}"
        errors = sum(int(r["errors"]) for r in runs[label])
        print(
            f"| {what} | {median(label, 'rps'):.0f} | {median(label, 'p50_ms'):.2f} | "
            f"{median(label, 'p99_ms'):.2f} | {cpu} | {len(runs[label])} | {errors} |"
        )

    print("\n| target | value | met |")
    print("|---|---|---|")
    for label in [label for label in ["nginx", "through", "through_stateless"] if label in runs]:
        ratio = median(label, "rps") / median("direct", "rps")
        added = median(label, "p50_ms") - median("direct", "p50_ms")
        for name, value, met in [
            (f"{label}: req/s ≥ 0.8× direct", f"{ratio:.2f}×", ratio >= 0.8),
            (f"{label}: p50 added ≤ 0.5 ms", f"{added:.2f} ms", added <= 0.5),
        ]:
            print(f"| {name} | {value} | {'yes' if met else 'NO'} |")
    cpu = median("through", "cpu_us") / median("native", "cpu_us")
    print(f"| toolwire CPU per proxied call ÷ per native call | {cpu:.2f}× | reported |")
    if "nginx" in runs:
        cpu = median("through", "cpu_us") / median("nginx", "cpu_us")
        print(f"| toolwire CPU per proxied call ÷ nginx's | {cpu:.2f}× | reported |")
    budget(runs, median)


if __name__ == "__main__":
    main(sys.argv[1])
