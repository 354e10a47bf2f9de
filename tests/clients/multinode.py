"""Several gateway nodes behind one Redis: what a stateless 2026-07-28 deployment relies on.

Starts ``redis-server`` on a free loopback port and two ``toolwire serve`` processes that share it
and one set of signing keys (config files written here), then drives them with the official Python
SDK client in the 2026-07-28 era through an HTTP transport that sends every request to the next
node in turn. It checks that:

- both nodes answer, alternately, for one client;
- the export stored by the node that ran ``catalog_export`` is read back whole on the other node
  with the same token, and refused there with another token;
- a task (the demo's ``catalog_reprice``, with the tasks extension declared) created on one node is
  polled on the other, its status moving and its result inlined there once it completes; another
  token cannot see it; a task cancelled on the other node ends ``cancelled`` and its run on the
  creating node stops (the prices it changes stop changing);
- after the producing node is stopped, the record is still read from the survivor (nothing that was
  stored lived only in the stopped node).

Usage: python multinode.py TOOLWIRE_BINARY
Exits 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx2
from loopback import free_port, wait_for_port
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

REVISION = "2026-07-28"
KEYS_ENV = "TOOLWIRE_SIGNING_KEYS"
WRITER = "writer-" + secrets.token_hex(8)
READER = "reader-" + secrets.token_hex(8)


def write_config(path: Path, redis_url: str) -> None:
    """One node's config: the shared Redis store, keys from the environment, two tokens."""
    path.write_text(
        "\n".join(
            [
                "[store]",
                f'url = "{redis_url}"',
                f'signing_keys_env = "{KEYS_ENV}"',
                "",
                "[[auth.tokens]]",
                f'token = "{WRITER}"',
                'principal = "writer"',
                'privileges = ["catalog:write"]',
                "",
                "[[auth.tokens]]",
                f'token = "{READER}"',
                'principal = "reader"',
                "privileges = []",
                "",
            ]
        )
    )


def signing_keys() -> str:
    """One key set for every node (the JSON form `TOOLWIRE_SIGNING_KEYS` holds)."""
    secret = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    return json.dumps({"keys": [{"kid": "multinode-1", "secret": secret}]})


class RoundRobin(httpx2.AsyncBaseTransport):
    """Sends each HTTP request to the next node, and remembers which node got which method."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.next = 0
        self.inner = httpx2.AsyncHTTPTransport()
        self.log: list[tuple[int, str]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        port = self.ports[self.next % len(self.ports)]
        self.next += 1
        method = request.headers.get("mcp-method", request.method)
        self.log.append((port, method))
        request.url = request.url.copy_with(port=port)
        request.headers["host"] = f"127.0.0.1:{port}"
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def client(ports: list[int], token: str) -> tuple[Client, RoundRobin]:
    transport = RoundRobin(ports)
    http = httpx2.AsyncClient(
        transport=transport,
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx2.Timeout(30.0, read=120.0),
    )
    url = f"http://127.0.0.1:{ports[0]}/mcp"
    return Client(streamable_http_client(url, http_client=http), mode=REVISION, raise_exceptions=True), transport


def export_items(text: str) -> list[Any]:
    data = json.loads(text)
    if isinstance(data, list):
        return data
    for key in ("items", "products", "results"):
        if isinstance(data, dict) and isinstance(data.get(key), list):
            return data[key]
    raise AssertionError(f"no list of items in the export: {text[:200]}")


async def scenario(a: int, b: int, stop_node: Any) -> list[str]:
    failures: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)

    writer, rr = client([a, b], WRITER)
    async with writer:
        await writer.list_tools()
        count = await writer.call_tool("catalog_count", {})
        check(count.is_error is False, "catalog_count answers")
        export = await writer.call_tool("catalog_export", {})
        producer = rr.log[-1][0]
        links = [c for c in export.content if c.type == "resource_link"]
        check(len(links) == 1, "catalog_export answers with one resource_link")
        uri = links[0].uri
        check(re.match(r"^toolwire://results/", uri) is not None, f"the link is a stored result: {uri[:60]}…")
        read = await writer.read_resource(uri)
        reader_node = rr.log[-1][0]
        check(reader_node != producer, f"stored on node :{producer}, read on node :{reader_node}")
        whole = export_items(read.contents[0].text)
        check(len(whole) > 0, f"the other node read the whole export ({len(whole)} products)")
        served = {port for port, _ in rr.log}
        check(served == {a, b}, f"both nodes served this client: {rr.log}")

    other_node = b if producer == a else a
    other, rr_other = client([other_node], READER)
    async with other:
        try:
            await other.read_resource(uri)
        except MCPError as e:
            check(e.code == -32602, f"another token is refused with -32602 (got {e.code}) on node :{rr_other.log[-1][0]}")
        else:
            check(False, "another token read the stored export")

    await tasks_across_nodes(a, b, check)

    stop_node(producer)
    survivor = other_node
    print(f"  stopped node :{producer}; reading from :{survivor}")
    again, _ = client([survivor], WRITER)
    async with again:
        read2 = await again.read_resource(uri)
        check(export_items(read2.contents[0].text) == whole, "the survivor still serves the same record")
    return failures


TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


async def rpc(http: httpx2.AsyncClient, port: int, token: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One 2026-07-28 request to the node on ``port`` that declares the tasks extension."""
    params = dict(params, _meta={
        "io.modelcontextprotocol/protocolVersion": REVISION,
        "io.modelcontextprotocol/clientInfo": {"name": "multinode", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": TASKS,
    })
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": REVISION,
        "Mcp-Method": method,
    }
    name = params.get("name") or params.get("taskId")
    if name:
        headers["Mcp-Name"] = name
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = await http.post(f"http://127.0.0.1:{port}/mcp", json=body, headers=headers)
    text = response.text
    lines = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(lines[-1] if lines else text)


async def tasks_across_nodes(a: int, b: int, check: Any) -> None:
    async with httpx2.AsyncClient(timeout=30.0) as http:
        async def lamp_price(port: int, n: int) -> float:
            got = await rpc(http, port, WRITER, "tools/call", {"name": "catalog_get", "arguments": {"id": 5 * n + 2}})
            return got["result"]["structuredContent"]["price"]

        created = await rpc(http, a, WRITER, "tools/call",
                            {"name": "catalog_reprice", "arguments": {"category": "desks", "percent": 1}})
        task = created.get("result", {})
        task_id = task.get("taskId", "")
        check(task.get("resultType") == "task" and len(task_id) == 32, f"node :{a} created a task {task_id[:8]}…")
        seen = await rpc(http, b, WRITER, "tasks/get", {"taskId": task_id})
        check(seen.get("result", {}).get("status") == "working", f"node :{b} sees it working: {seen}")
        hidden = await rpc(http, b, READER, "tasks/get", {"taskId": task_id})
        check(hidden.get("error", {}).get("code") == -32602, f"another token gets -32602 on node :{b}")
        done: dict[str, Any] = {}
        for _ in range(100):
            done = (await rpc(http, b, WRITER, "tasks/get", {"taskId": task_id})).get("result", {})
            if done.get("status") == "completed":
                break
            await asyncio.sleep(0.1)
        changed = done.get("result", {}).get("structuredContent", {}).get("changed")
        check(changed == 400, f"node :{b} inlines the finished result (changed: {changed})")

        created = await rpc(http, a, WRITER, "tools/call",
                            {"name": "catalog_reprice", "arguments": {"category": "lamps", "percent": 10}})
        task_id = created.get("result", {}).get("taskId", "")
        await asyncio.sleep(0.5)
        ack = await rpc(http, b, WRITER, "tasks/cancel", {"taskId": task_id})
        check(ack.get("result") == {"resultType": "complete"}, f"node :{b} acknowledges the cancellation")
        status = (await rpc(http, a, WRITER, "tasks/get", {"taskId": task_id})).get("result", {}).get("status")
        check(status == "cancelled", f"node :{a} sees it cancelled (got {status})")
        # The running node sees the cancellation within half a second; after that, no price moves.
        await asyncio.sleep(1.0)
        before = [await lamp_price(a, n) for n in range(400)]
        await asyncio.sleep(0.5)
        after = [await lamp_price(a, n) for n in range(400)]
        check(before == after, f"the run on node :{a} stopped after a cancellation on node :{b}")
        check(before[-1] == (500 + (5 * 399 + 2) * 7919 % 99_500) / 100,
              "the cancelled run never reached the last lamp")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[0])
    redis = shutil.which("redis-server")
    if redis is None:
        print("redis-server not found (apt-get install redis-server)", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="toolwire-multinode-"))
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        redis_port = free_port()
        procs["redis"] = subprocess.Popen(
            [redis, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(tmp)],
            stdout=subprocess.DEVNULL,
        )
        wait_for_port(redis_port, procs["redis"], "redis-server")
        env = dict(os.environ, **{KEYS_ENV: signing_keys()})
        ports = [free_port(), free_port()]
        by_port: dict[int, str] = {}
        for name, port in zip(["a", "b"], ports):
            config = tmp / f"node-{name}.toml"
            write_config(config, f"redis://127.0.0.1:{redis_port}/")
            data = tmp / f"data-{name}"
            data.mkdir()
            log = open(tmp / f"node-{name}.log", "wb")
            procs[name] = subprocess.Popen(
                [binary, "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}", "--data-dir", str(data)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
            by_port[port] = name
        for port, name in by_port.items():
            wait_for_port(port, procs[name], f"node {name}")
        print(f"Several nodes: redis :{redis_port}, nodes :{ports[0]} and :{ports[1]}, era {REVISION}")

        def stop_node(port: int) -> None:
            proc = procs[by_port[port]]
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

        failures = asyncio.run(scenario(ports[0], ports[1], stop_node))
    except Exception as e:  # report, then clean up and fail
        print(f"  FAIL setup: {e!r}", file=sys.stderr)
        for name in ("a", "b"):
            log = tmp / f"node-{name}.log"
            if log.exists():
                print(f"--- node {name} log ---\n{log.read_text()[-3000:]}", file=sys.stderr)
        failures = ["setup"]
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"Several nodes: {'all checks passed' if not failures else f'{len(failures)} failed'}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
