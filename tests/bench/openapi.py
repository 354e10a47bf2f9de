"""Reads scripts/bench-gateway's OpenAPI rounds and prints the medians, the ratios and the
targets of issue #27: toolwire's bridge at least 10x FastMCP's req/s with a lower p99, and the
FastAPI app through toolwire at least 0.7x its own req/s under direct load (the two sharing the
server core); toolwire's CPU per bridged call beside its app-tool and native calls, and the
API's own CPU per call in both FastAPI loads, round by round.

Usage: python openapi.py OPENAPI.txt
"""

from __future__ import annotations

import sys

from report import rounds  # the same key=value reader as the main table


def main(path):
    runs, median = rounds(path)

    print("\n| load | req/s | p50 ms | p99 ms | server CPU µs/call | rounds | errors |")
    print("|---|---|---|---|---|---|---|")
    for label, what in [
        ("fastmcp", "FastMCP from_openapi: getProduct (session)"),
        ("bridged", "toolwire [[openapi]]: api_getProduct (session)"),
        ("app", "toolwire app tool: app_catalog_get (session)"),
        ("native", "toolwire native: catalog_get (session)"),
        ("fastapi", "FastAPI app directly: GET /nodes/1"),
        ("through_fastapi", "FastAPI app through toolwire: nodes_getNode (session)"),
    ]:
        errors = sum(int(r["errors"]) for r in runs[label])
        print(
            f"| {what} | {median(label, 'rps'):.0f} | {median(label, 'p50_ms'):.2f} | "
            f"{median(label, 'p99_ms'):.2f} | {median(label, 'cpu_us'):.1f} | "
            f"{len(runs[label])} | {errors} |"
        )
    over_fastmcp = median("bridged", "rps") / median("fastmcp", "rps")
    p99_lower = median("bridged", "p99_ms") < median("fastmcp", "p99_ms")
    through = median("through_fastapi", "rps") / median("fastapi", "rps")
    print(f"\ntoolwire / FastMCP req/s: {over_fastmcp:.1f}x (target >= 10x): "
          f"{'met' if over_fastmcp >= 10 else 'NOT met'}; p99 lower: {'yes' if p99_lower else 'NO'}")
    print(f"FastAPI through toolwire / directly, req/s: {through:.2f}x (target >= 0.7x): "
          f"{'met' if through >= 0.7 else 'NOT met'}")
    print(f"toolwire CPU per call: bridged {median('bridged', 'cpu_us'):.1f} µs, "
          f"app tool {median('app', 'cpu_us'):.1f} µs, native {median('native', 'cpu_us'):.1f} µs")
    # The ratio is the two processes' CPU per call sharing one core: the API's own share, when it
    # moves between the loads, is told apart from toolwire's here, round by round.
    print("\n| round | FastAPI µs/call directly | FastAPI µs/call through toolwire | "
          "toolwire µs/call | through / directly req/s |")
    print("|---|---|---|---|---|")
    for n, (direct, through) in enumerate(zip(runs["fastapi"], runs["through_fastapi"]), 1):
        print(f"| {n} | {float(direct['cpu_us']):.1f} | {float(through['peer_cpu_us']):.1f} | "
              f"{float(through['cpu_us']):.1f} | "
              f"{float(through['rps']) / float(direct['rps']):.2f}x |")


if __name__ == "__main__":
    main(sys.argv[1])
