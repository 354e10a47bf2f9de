"""N sequential tools/call over one keep-alive connection in one 2025-11-25 session, for
scripts/bench-instructions (standard library only). Every answer must be HTTP 200 and carry a
JSON-RPC result.

Usage: python calls.py PORT TOOL ARGUMENTS_JSON N
"""

from __future__ import annotations

import http.client
import json
import sys

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def main(port, tool, arguments, n):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

    def post(body, extra):
        connection.request("POST", "/mcp", body=body, headers={**HEADERS, **extra})
        response = connection.getresponse()
        return response, response.read()

    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench-instructions", "version": "1"},
        },
    }
    response, _ = post(json.dumps(initialize), {})
    session = {"Mcp-Session-Id": response.getheader("mcp-session-id"), "MCP-Protocol-Version": "2025-11-25"}
    post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), session)
    call = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": json.loads(arguments)}}
    )
    for _ in range(n):
        response, body = post(call, session)
        if response.status != 200 or b'"result"' not in body:
            raise SystemExit(f"unexpected answer ({response.status}): {body[:300]!r}")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]))
