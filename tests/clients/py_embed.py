"""The embedding example (``crates/toolwire-gateway/examples/embed.rs``) as a remote client sees it.

The example is an axum app with a route of its own (``/hello``) that mounts the gateway on ``/mcp``
with its own tool source (``greet``) beside the demo catalog and one app tool. This script starts
an OAuth issuer (the one ``deploy.py`` runs), a small app answering the app tool, and the example
with a configuration naming both, then checks with the official Python SDK client, in both eras:

- the app's own route still answers as before;
- without a token the SDK client is refused (401);
- with a token the tool list is the three sources' tools in order, and ``greet`` (the example's
  source), ``catalog_get`` (the demo catalog) and ``orders_find`` (the app tool) answer with the
  exact result JSON;
- ``/metrics``, parsed by ``prometheus_client``, counts the calls of the example's own tool.

Usage: python py_embed.py EMBED_EXAMPLE_BINARY
Exits 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
from deploy import Issuer, calls, check, failures, metrics
from loopback import finish, free_port, report, wait_for_port
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from py_client import DEMO_TOOLS

# The demo catalog, then the app tool, then the embedding app's own source.
TOOLS = [*DEMO_TOOLS, "orders_find", "greet"]


def start_app() -> ThreadingHTTPServer:
    """The app behind the app tool: answers every POST with a legacy envelope of the order asked."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the http.server API)
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            order = request["arguments"]["id"]
            body = json.dumps({"success": True, "data": {"id": order, "status": "shipped"}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def wire(model: Any) -> dict[str, Any]:
    """The result as it was on the wire, without `_meta`, and with the time of the call in the
    text's envelope replaced by ``T`` (the one part that changes from run to run)."""
    result = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    result.pop("_meta", None)
    for block in result.get("content", []):
        if block.get("type") == "text":
            block["text"] = re.sub(r'"generatedAt":"[^"]+"', '"generatedAt":"T"', block["text"])
    return result


def envelope(data: dict[str, Any]) -> str:
    """The compat phase's text block: the legacy envelope toolwire writes for `data`."""
    return json.dumps({"success": True, "data": data, "_meta": {"generatedAt": "T"}},
                      separators=(",", ":"))


GREETING = {
    "content": [{"type": "text", "text": envelope({"greeting": "Hello, Ada!"})}],
    "structuredContent": {"greeting": "Hello, Ada!"},
    "isError": False,
    "resultType": "complete",
}
PRODUCT = {
    "id": 1,
    "name": "Oak table 1",
    "category": "tables",
    "price": 84.19,
    "stock": 31,
    "description": "From the Oak line: a table made to order and shipped within 3 days.",
}
# The app's own envelope is the text, as the app wrote it.
ORDER = {
    "content": [{"type": "text", "text": '{"success": true, "data": {"id": 7, "status": "shipped"}}'}],
    "structuredContent": {"id": 7, "status": "shipped"},
    "isError": False,
    "resultType": "complete",
}


async def as_client(url: str, audience: str, issuer: Issuer, base: str) -> None:
    hello = httpx2.get(f"{base}/hello")
    check(hello.status_code == 200 and hello.text == "hello from the host app",
          f"the app's own route answers as before: {hello.status_code} {hello.text!r}")
    bare = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                       headers={"Accept": "application/json, text/event-stream"})
    check(bare.status_code == 401, f"without a token /mcp is refused: {bare.status_code}")
    before = metrics(base)
    for mode in ["legacy", "2026-07-28"]:
        token = issuer.mint(audience, "catalog.write")
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with Client(streamable_http_client(url, http_client=http), mode=mode,
                          raise_exceptions=True) as c:
            tools = [t.name for t in (await c.list_tools()).tools]
            check(tools == TOOLS, f"{mode}: the tools of the three sources, in order: {tools}")
            greeting = wire(await c.call_tool("greet", {"name": "Ada"}))
            check(greeting == GREETING, f"{mode}: greet (the example's own source): {greeting}")
            product = wire(await c.call_tool("catalog_get", {"id": 1}))
            expected = {"content": [{"type": "text", "text": envelope(PRODUCT)}],
                        "structuredContent": PRODUCT, "isError": False, "resultType": "complete"}
            check(product == expected, f"{mode}: catalog_get (the demo catalog): {product}")
            order = wire(await c.call_tool("orders_find", {"id": 7}))
            check(order == ORDER, f"{mode}: orders_find (an app tool): {order}")
    after = metrics(base)
    moved = calls(after, "greet") - calls(before, "greet")
    check(moved == 2, f"/metrics counts the example's own tool: toolwire_calls_total moved by {moved}")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[0])
    tmp = Path(tempfile.mkdtemp(prefix="toolwire-embed-"))
    issuer = Issuer()
    app = start_app()
    proc: subprocess.Popen[bytes] | None = None
    try:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        audience = f"{base}/mcp"
        config = tmp / "toolwire.toml"
        config.write_text("\n".join([
            "demo_tools = true", "",
            "[store]", f'data_dir = "{tmp / "data"}"', "",
            "[auth.oauth]", f'issuer = "{issuer.url}"', f'audience = "{audience}"',
            'scopes = { "catalog.write" = ["catalog:write"] }', "",
            "[[tools]]", 'name = "orders_find"', 'description = "Find an order by its id."',
            f'endpoint = "http://127.0.0.1:{app.server_address[1]}/orders"',
            'input_schema = { type = "object", properties = { id = { type = "integer" } }, required = ["id"] }',
            "",
        ]))
        log = open(tmp / "embed.log", "wb")
        env = dict(os.environ)
        env.pop("TOOLWIRE_PHASE", None)
        proc = subprocess.Popen([binary, f"127.0.0.1:{port}", str(config)], env=env,
                                stdout=subprocess.DEVNULL, stderr=log)
        wait_for_port(port, proc, "the embed example")
        asyncio.run(as_client(audience, audience, issuer, base))
    except Exception as e:
        failures.append(f"{type(e).__name__}: {e}")
        print(f"  FAIL {type(e).__name__}: {e}")
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        issuer.server.shutdown()
        app.shutdown()
        finish(failures, tmp, "embed.log")
    return report(failures, "every embedding check passed")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
