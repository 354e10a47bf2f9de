"""Small MCP-over-HTTP helpers for scripts/bench-gateway (standard library only).

  session URL REVISION             initialize + notifications/initialized; prints the session id
  capture URL OUT                  writes the floor server's canned results, taken from toolwire
  burst URL TOOL N                 N concurrent stateless calls of TOOL; prints seconds and sizes
"""

from __future__ import annotations

import json
import sys
import threading
import time
import urllib.request

HANDSHAKE = "2025-11-25"
STATELESS = "2026-07-28"


def post(url, body, headers):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json, text/event-stream")
    for key, value in headers.items():
        request.add_header(key, value)
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.headers, response.read().decode()


def message(text):
    """The JSON-RPC message of a plain JSON body or of the last SSE data line carrying one."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    found = None
    for line in text.splitlines():
        if line.startswith("data:"):
            try:
                value = json.loads(line[5:].strip())
            except ValueError:
                continue
            if "jsonrpc" in value:
                found = value
    if found is None:
        raise SystemExit(f"no JSON-RPC message in: {text[:300]}")
    return found


def session(url, revision):
    headers, _ = post(
        url,
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": revision,
                "capabilities": {},
                "clientInfo": {"name": "bench-gateway", "version": "1"},
            },
        },
        {},
    )
    sid = headers.get("mcp-session-id")
    if not sid:
        raise SystemExit("the server gave no Mcp-Session-Id")
    common = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": revision}
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, common)
    return sid


def meta():
    return {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientInfo": {"name": "bench-gateway", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def stateless(url, method, params):
    params = dict(params, _meta=meta())
    headers = {"MCP-Protocol-Version": STATELESS, "Mcp-Method": method}
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    _, text = post(url, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers)
    return message(text)


def capture(url, out):
    sid = session(url, HANDSHAKE)
    common = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": HANDSHAKE}
    _, text = post(url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}, common)
    tools = message(text)["result"]["tools"]
    calls = [
        ("catalog_get", {"id": 42}),
        ("catalog_search", {"limit": 100}),
        ("catalog_export", {}),
    ]
    results = {}
    for name, arguments in calls:
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        _, text = post(url, body, common)
        results[f"{HANDSHAKE} {name}"] = message(text)["result"]
    answer = stateless(url, "tools/call", {"name": "catalog_get", "arguments": {"id": 42}})
    results[f"{STATELESS} catalog_get"] = answer["result"]
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"tools": tools, "results": results}, f)


def burst(url, tool, n):
    sizes, errors = [], []

    def one():
        try:
            answer = stateless(url, "tools/call", {"name": tool, "arguments": {}})
            text = json.dumps(answer)
            if "error" in answer or answer["result"].get("isError"):
                errors.append(text[:300])
            sizes.append(len(text))
        except Exception as e:  # noqa: BLE001 - reported, the benchmark fails on it
            errors.append(repr(e))

    started = time.monotonic()
    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    if errors:
        raise SystemExit(f"{len(errors)} of {n} calls failed: {errors[0]}")
    print(f"{elapsed:.2f} {max(sizes)}")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "session":
        print(session(sys.argv[2], sys.argv[3]))
    elif command == "capture":
        capture(sys.argv[2], sys.argv[3])
    elif command == "burst":
        burst(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        raise SystemExit(__doc__)
