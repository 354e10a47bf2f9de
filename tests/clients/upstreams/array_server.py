"""A stdio MCP server pinned to 2025-06-18 that sends an array root as ``structuredContent``.

For upstreams.py. Written with the official Python SDK's low-level ``Server``. It is the server of
issue #26 "pinned to an old revision": it does not speak the stateless revision
(``server/discover`` is an unknown method) and, whatever the client asks for, answers
``initialize`` with 2025-06-18; its tools publish no ``outputSchema`` and send their list result
as it is, an array, in ``structuredContent`` (with the usual text copy), which 2025-06-18 does not
allow (an object only).

The SDK refuses to send such a result (its 2025-06-18 result model wants an object), so the
calls are answered by a server middleware, which the SDK sends as returned; the SDK still does
the transport, the handshake and ``tools/list``.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

PINNED = "2025-06-18"

ORDERS = [
    {"id": 1001, "customer": "c-1", "total": 59.9, "status": "open"},
    {"id": 1002, "customer": "c-7", "total": 12.5, "status": "shipped"},
    {"id": 1003, "customer": "c-1", "total": 230.0, "status": "open"},
]

TOOLS = [
    types.Tool(
        name="recent_orders",
        description="The most recent orders, newest first (a list).",
        input_schema={"type": "object", "properties": {"limit": {"type": "integer", "minimum": 1}}},
    ),
    types.Tool(
        name="open_carts",
        description="Carts not checked out yet (a list; there are none).",
        input_schema={"type": "object", "properties": {}},
    ),
]


def answer(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The call's result as this server puts it on the wire."""
    if name == "recent_orders":
        rows: list[Any] = ORDERS[: int(arguments.get("limit", len(ORDERS)))]
    elif name == "open_carts":
        rows = []
    else:
        raise MCPError(code=-32602, message=f"Unknown tool: {name}")
    return {"content": [{"type": "text", "text": json.dumps(rows)}], "structuredContent": rows}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def pinned(ctx: Any, call_next: Any) -> Any:
    """Answers as a 2025-06-18 server would: that revision only, arrays sent as they are."""
    if ctx.method == "tools/call":
        params = ctx.params or {}
        return answer(params.get("name", ""), params.get("arguments") or {})
    result = await call_next(ctx)
    if ctx.method == "initialize":
        result = {**result, "protocolVersion": PINNED}
    return result


server = Server("orders-2025-06-18", version="1.0.0", on_list_tools=list_tools)
server.middleware.append(pinned)

async def main() -> None:
    # `serve_loop` serves the handshake era only (`Server.run` would also serve 2026-07-28), so
    # `server/discover` is an unknown method and `initialize` follows on the same connection.
    async with stdio_server() as (read, write), server.lifespan(server) as state:
        await serve_loop(server, read, write, lifespan_state=state,
                         init_options=server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
