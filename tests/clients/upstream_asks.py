"""An upstream's elicitation and sampling requests, relayed by toolwire to the client whose call
they are about (DESIGN §15, "Calls"), with the official Python SDK client (PyPI ``mcp``).

Starts ``toolwire serve`` in front of the official reference server
``@modelcontextprotocol/server-everything`` (stdio, under ``everything_``). toolwire declares
elicitation and sampling to it, so it lists ``trigger-elicitation-request`` and
``trigger-sampling-request``, which ask their client during the call. Then:

- a client in a 2025-11-25 session (``mode="legacy"``) with an elicitation and a sampling
  callback: the upstream's question reaches the callback (its message and requested schema as
  the upstream sent them) and the upstream's result carries the client's answer;
- the same calls from a client that declared neither: the elicitation is declined (the upstream
  says so in its result) and the sampling tool fails, without a hang;
- a stateless 2026-07-28 client (``mode="2026-07-28"``), which has no server-to-client requests,
  with both callbacks: the upstream's question comes as input required while toolwire holds the
  call, the SDK answers it on the retry and the upstream's result carries the answer;
- a stateless client that declared neither: declined, also while a client that could be asked
  has a call of its own in flight on the same upstream (over stdio the upstream's request does
  not say which call it is about, so that client is never shown another caller's question).

Usage: python upstream_asks.py TOOLWIRE_BINARY
Exits 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

import mcp.types as types
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from loopback import free_port, wait_for_port

HERE = Path(__file__).resolve().parent
EVERYTHING = HERE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
NODE = HERE / "node_modules" / ".bin" / "node"
TOKEN = "asks-" + secrets.token_hex(8)
ELICIT = "everything_trigger-elicitation-request"
SAMPLE = "everything_trigger-sampling-request"


def wire(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in result.get("content", []) if b.get("type") == "text")


def client(url: str, mode: str, asked: list[dict[str, Any]] | None) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
    if asked is None:
        return Client(streamable_http_client(url, http_client=http), mode=mode, raise_exceptions=True)

    async def elicit(_context: Any, params: Any) -> types.ElicitResult:
        asked.append({"elicitation": wire(params)})
        return types.ElicitResult(action="accept", content={"name": "Ada Lovelace", "check": True})

    async def sample(_context: Any, params: Any) -> types.CreateMessageResult:
        asked.append({"sampling": wire(params)})
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="hello from the client's model"),
            model="toolwire-test-model",
        )

    return Client(streamable_http_client(url, http_client=http), mode=mode, raise_exceptions=True,
                  elicitation_callback=elicit, sampling_callback=sample)


async def call(c: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return wire(await asyncio.wait_for(c.call_tool(name, arguments), 30))


async def checks(url: str) -> list[str]:
    failures: list[str] = []

    def expect(ok: bool, what: str) -> None:
        if not ok:
            failures.append(what)

    async def answered(mode: str) -> None:
        """A client of ``mode`` with both callbacks: asked each question of the upstream once, and
        the upstream's result carries its answer."""
        asked: list[dict[str, Any]] = []
        async with client(url, mode, asked) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            expect({ELICIT, SAMPLE} <= names, f"{mode}: the upstream's asking tools are not listed: {sorted(names)}")
            r = await call(c, ELICIT, {})
            expect(r.get("isError") is not True, f"{mode}: elicitation through toolwire: an error result {r}")
            expect("User provided the requested information" in text_of(r) and "Ada Lovelace" in text_of(r),
                   f"{mode}: the upstream did not get the client's answer: {text_of(r)[:400]}")
            r = await call(c, SAMPLE, {"prompt": "Say hi", "maxTokens": 20})
            expect("hello from the client's model" in text_of(r),
                   f"{mode}: the upstream did not get the client's sampling answer: {text_of(r)[:400]}")
        kinds = [next(iter(a)) for a in asked]
        expect(kinds == ["elicitation", "sampling"],
               f"{mode}: the client was asked {kinds}, not one elicitation then one sampling")
        if kinds[:1] == ["elicitation"]:
            params = asked[0]["elicitation"]
            expect(params.get("message") == "Please provide inputs for the following fields:",
                   f"{mode}: the question is not the upstream's: {params.get('message')!r}")
            expect(params.get("requestedSchema", {}).get("required") == ["name"],
                   f"{mode}: the requested schema is not the upstream's: {json.dumps(params)[:300]}")

    await answered("legacy")

    async with client(url, "legacy", None) as bare:
        r = await call(bare, ELICIT, {})
        expect("User declined" in text_of(r), f"a client that cannot be asked: not declined: {text_of(r)[:300]}")
        try:
            r = await call(bare, SAMPLE, {"prompt": "Say hi", "maxTokens": 20})
            expect(r.get("isError") is True, f"sampling without a client that samples: not an error result {r}")
        except Exception as e:  # noqa: BLE001 - a JSON-RPC error is an acceptable refusal too
            expect("hello" not in str(e), f"sampling without a client that samples: {e}")

    # A stateless client that declared both is asked as input required (the gateway holds the
    # call meanwhile); the SDK answers with its callbacks on the retry.
    await answered("2026-07-28")
    async with client(url, "2026-07-28", None) as bare:
        r = await call(bare, ELICIT, {})
        expect("User declined" in text_of(r), f"2026-07-28 that cannot be asked: not declined: {text_of(r)[:300]}")

    # Two calls in flight on the stdio upstream: one that can be asked (a long operation) and
    # the stateless one that asks. The question goes to nobody.
    bystander_asked: list[dict[str, Any]] = []
    async with client(url, "legacy", bystander_asked) as bystander, client(url, "2026-07-28", None) as modern:
        long_call = asyncio.create_task(
            call(bystander, "everything_trigger-long-running-operation", {"duration": 3, "steps": 3}))
        await asyncio.sleep(0.5)
        r = await call(modern, ELICIT, {})
        expect("User declined" in text_of(r), f"two calls in flight: not declined: {text_of(r)[:300]}")
        await long_call
        expect(bystander_asked == [], f"another caller was shown the question: {bystander_asked}")
    return failures


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="toolwire-asks-"))
    port = free_port()
    (tmp / "toolwire.toml").write_text(f"""demo_tools = false

[[auth.tokens]]
token = "{TOKEN}"
principal = "asker"

[[upstreams]]
name = "everything"
command = [{json.dumps(str(NODE))}, {json.dumps(str(EVERYTHING))}, "stdio"]
tool_prefix = "everything_"
tools = ["trigger-elicitation-request", "trigger-sampling-request", "trigger-long-running-operation"]
timeout_ms = 20000
""")
    log = open(tmp / "toolwire.log", "w")
    proc = subprocess.Popen([argv[0], "serve", "--config", str(tmp / "toolwire.toml"), "--listen",
                             f"127.0.0.1:{port}", "--data-dir", str(tmp / "data")], stdout=log, stderr=log)
    failures: list[str] = []
    try:
        wait_for_port(port, proc, "toolwire serve")
        failures = asyncio.run(checks(f"http://127.0.0.1:{port}/mcp"))
    except Exception:  # noqa: BLE001 - reported with the gateway's log
        failures.append(traceback.format_exc())
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
        if failures:
            print((tmp / "toolwire.log").read_text()[-3000:], file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)
    for failure in failures:
        print(f"FAIL {failure}")
    if failures:
        return 1
    print("the upstream's elicitation and sampling reached the asking client, and only it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
