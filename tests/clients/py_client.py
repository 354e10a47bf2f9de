"""The official Python SDK client (PyPI ``mcp``, pinned in requirements.txt) against ``toolwire serve``.

Connects once per era — ``mode="legacy"`` (the initialize handshake) and ``mode="2026-07-28"``
(stateless, every request carries its revision) — lists the tools, calls every demo tool on a path
that succeeds and on each path that fails, and reads the stored export back with ``read_resource``.
The SDK validates every result itself (pydantic models of the negotiated revision, and
``structuredContent`` against the published ``outputSchema``); anything it raises fails the run,
and so does any answer whose content is not what toolwire promises.

Usage: python py_client.py URL WRITER_TOKEN READER_TOKEN [PHASE]
PHASE is the phase the gateway runs in: compat (default) or spec.
Exits 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import sys
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

PREFIX = "dev.toolwire"
DEMO_TOOLS = [
    "catalog_search",
    "catalog_get",
    "catalog_count",
    "catalog_update_price",
    "catalog_reprice",
    "catalog_export",
    "catalog_chart",
    "legacy_echo",
    "catalog_confirm_price",
    "catalog_describe",
]
MODES = ["legacy", "2026-07-28"]


class CheckFailed(Exception):
    """One expectation about an answer did not hold."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def wire(model: Any) -> dict[str, Any]:
    """The result as it was on the wire (camelCase keys, absent fields left out)."""
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def texts(result: dict[str, Any]) -> list[str]:
    return [b["text"] for b in result["content"] if b["type"] == "text"]


def try_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def legacy_envelope(result: dict[str, Any]) -> dict[str, Any] | None:
    """Phase compat: the first text block is the legacy envelope."""
    content = result["content"]
    if not content or content[0]["type"] != "text":
        return None
    value = try_json(content[0]["text"])
    if isinstance(value, dict) and isinstance(value.get("success"), bool):
        return value
    return None


def is_wrapping(schema: dict[str, Any] | None) -> bool:
    return (
        isinstance(schema, dict)
        and schema.get("type") == "object"
        and list(schema.get("properties", {})) == ["result"]
        and schema.get("required") == ["result"]
    )


def data_of(result: dict[str, Any], tool: dict[str, Any], revision: str) -> Any:
    """The tool's data from the text copy and from structuredContent, which must agree."""
    env = legacy_envelope(result)
    first = texts(result)[0] if texts(result) else ""
    from_text = env.get("data") if env is not None else try_json(first)
    if "structuredContent" not in result:
        return from_text
    sc = result["structuredContent"]
    if revision == "2026-07-28":
        from_structured = sc
    elif tool.get("outputSchema") is not None:
        from_structured = sc["result"] if is_wrapping(tool["outputSchema"]) else sc
    else:
        from_structured = sc if isinstance(from_text, dict) else sc["result"]
    expect(from_text == from_structured, f"text copy {from_text!r} and structuredContent {from_structured!r} disagree")
    return from_structured


def error_code(result: dict[str, Any]) -> str | None:
    env = legacy_envelope(result)
    if env is not None and env["success"] is False:
        err = env.get("error")
        if isinstance(err, dict) and err.get("code"):
            return err["code"]
        if env.get("code"):
            return env["code"]
    for text in texts(result):
        value = try_json(text)
        if isinstance(value, dict) and isinstance(value.get("error"), dict) and isinstance(value["error"].get("code"), str):
            return value["error"]["code"]
    sc = result.get("structuredContent")
    if isinstance(sc, dict) and isinstance(sc.get("error"), dict):
        return sc["error"].get("code")
    return None


def items(data: Any) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in ("items", "products", "results"):
            if isinstance(data.get(key), list):
                return data[key]
    raise CheckFailed(f"no list of items in {data!r:.300}")


def count_of(data: Any) -> int:
    if isinstance(data, int) and not isinstance(data, bool):
        return data
    if isinstance(data, dict):
        for key in ("count", "total"):
            if isinstance(data.get(key), int):
                return data[key]
    raise CheckFailed(f"no count in {data!r}")


def expect_failure(result: dict[str, Any], code: str) -> None:
    expect(result.get("isError") is True, f"expected isError, got {result!r:.500}")
    expect(error_code(result) == code, f"expected code {code}, got {error_code(result)} in {result!r:.500}")
    expect(len(texts(result)) > 0, "a failure carries its message as text")


class Run:
    def __init__(self) -> None:
        self.passed = 0
        self.failed: list[str] = []

    async def check(self, name: str, fn: Callable[[], Awaitable[None]]) -> None:
        try:
            await fn()
        except Exception:  # every kind of failure is reported, then the run goes on
            self.failed.append(name)
            print(f"  FAIL {name}:\n{traceback.format_exc()}", file=sys.stderr)
        else:
            self.passed += 1
            print(f"  ok   {name}")


def client_for(url: str, token: str, mode: str) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode, raise_exceptions=True)


async def run_mode(run: Run, url: str, writer_token: str, reader_token: str, mode: str, phase: str) -> None:
    print(f"Python SDK client, mode={mode}, phase {phase}, {url}")
    async with client_for(url, writer_token, mode) as writer, client_for(url, reader_token, mode) as reader:
        revision = writer.protocol_version
        print(f"  negotiated {revision}")
        not_found = -32602 if revision == "2026-07-28" else -32002
        tools: dict[str, dict[str, Any]] = {}
        state: dict[str, Any] = {}

        async def call(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
            return wire(await client.call_tool(name, args))

        async def listing() -> None:
            expect(revision == ("2026-07-28" if mode == "2026-07-28" else "2025-11-25"), f"revision {revision}")
            for tool in (await writer.list_tools()).tools:
                tools[tool.name] = wire(tool)
            for name in DEMO_TOOLS:
                expect(name in tools, f"tool {name} missing")
                expect(bool(tools[name].get("description")), f"{name} has no description")
            expect("outputSchema" not in tools["catalog_export"], "catalog_export publishes no outputSchema")
            await reader.list_tools()

        await run.check("tools/list publishes every demo tool", listing)

        async def counting() -> None:
            r = await call(writer, "catalog_count", {})
            expect(r.get("isError") is not True, repr(r))
            state["total"] = count_of(data_of(r, tools["catalog_count"], revision))
            expect(state["total"] > 0, "an empty catalog")

        await run.check("catalog_count {} counts the catalog", counting)

        async def searching() -> None:
            r1 = await call(writer, "catalog_search", {"limit": 5})
            page1 = items(data_of(r1, tools["catalog_search"], revision))
            expect(len(page1) == 5, f"{len(page1)} items")
            state["first"] = page1[0]
            pagination = r1.get("_meta", {}).get(f"{PREFIX}/pagination")
            expect(isinstance(pagination, dict), f"pagination in _meta: {r1.get('_meta')}")
            expect(pagination.get("total") == state["total"], f"pagination {pagination}")
            r2 = await call(writer, "catalog_search", {"limit": 5, "page": 2})
            page2 = items(data_of(r2, tools["catalog_search"], revision))
            expect({p["id"] for p in page1}.isdisjoint({p["id"] for p in page2}), "page 2 repeats page 1")
            empty = await call(writer, "catalog_search", {"query": "zz-no-such-product-zz"})
            expect(items(data_of(empty, tools["catalog_search"], revision)) == [], "found something for nonsense")

        await run.check("catalog_search pages and finds nothing for nonsense", searching)

        async def getting() -> None:
            first = state["first"]
            r = await call(writer, "catalog_get", {"id": first["id"]})
            expect(data_of(r, tools["catalog_get"], revision) == first, f"catalog_get {r!r:.300}")
            expect_failure(await call(writer, "catalog_get", {"id": 987654321}), "not_found")

        await run.check("catalog_get finds a product and says not_found otherwise", getting)

        async def invalid() -> None:
            first = state["first"]
            for name, args in [
                ("catalog_search", {"limit": 0}),
                ("catalog_search", {"page": 0}),
                ("catalog_get", {}),
                ("catalog_update_price", {"id": first["id"], "price": -3}),
            ]:
                r = await call(writer, name, args)
                expect_failure(r, "invalid_arguments")

        await run.check("arguments outside the input schema are invalid_arguments results", invalid)

        async def prices() -> None:
            first = state["first"]
            price = 77.25 if mode == "legacy" else 88.75
            before = data_of(await call(writer, "catalog_get", {"id": first["id"]}), tools["catalog_get"], revision)
            dry = await call(reader, "catalog_update_price", {"id": first["id"], "price": price, "dryRun": True})
            expect(dry.get("isError") is not True, repr(dry))
            expect(dry.get("_meta", {}).get(f"{PREFIX}/dryRun") is True, f"dryRun meta in {dry.get('_meta')}")
            same = data_of(await call(writer, "catalog_get", {"id": first["id"]}), tools["catalog_get"], revision)
            expect(same == before, "a dry run changed the product")
            denied = await call(reader, "catalog_update_price", {"id": first["id"], "price": price})
            expect_failure(denied, "missing_privilege")
            expect("catalog:write" in json.dumps(denied["content"]), "the missing privilege is named")
            done = await call(writer, "catalog_update_price", {"id": first["id"], "price": price})
            expect(done.get("isError") is not True, repr(done))
            after = data_of(await call(writer, "catalog_get", {"id": first["id"]}), tools["catalog_get"], revision)
            expect(float(after["price"]) == price, f"price after update {after}")

        await run.check("catalog_update_price: dry run, missing privilege, real update", prices)

        async def chart() -> None:
            r = await call(writer, "catalog_chart", {})
            images = [b for b in r["content"] if b["type"] == "image"]
            expect(len(images) == 1, f"one image block in {[b['type'] for b in r['content']]}")
            expect(images[0]["mimeType"] == "image/png", images[0]["mimeType"])
            expect(base64.b64decode(images[0]["data"])[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")

        await run.check("catalog_chart sends a PNG image", chart)

        async def echo() -> None:
            text = 'héllo ✓ "quoted" 42'
            r = await call(writer, "legacy_echo", {"text": text})
            expect(r.get("isError") is not True, repr(r))
            expect(data_of(r, tools["legacy_echo"], revision) == {"text": text}, f"echo {r!r:.300}")
            if phase == "compat":
                env = legacy_envelope(r)
                expect(env is not None and env["success"] is True, "the tool's own envelope comes first")
            else:
                expect(json.loads(r["content"][0]["text"]) == {"text": text}, "the data comes first as JSON")

        await run.check("legacy_echo answers with its legacy string", echo)

        async def export() -> None:
            r = await call(writer, "catalog_export", {})
            expect(r.get("isError") is not True, repr(r)[:500])
            links = [b for b in r["content"] if b["type"] == "resource_link"]
            expect(len(links) == 1, f"one resource_link in {[b['type'] for b in r['content']]}")
            uri = links[0]["uri"]
            expect(re.fullmatch(r"toolwire://results/[^?]+\?exp=\d+&kid=[^&]+&sig=[A-Za-z0-9_-]+", uri) is not None, uri)
            read = wire(await writer.read_resource(uri))
            first = read["contents"][0]
            expect(first["uri"] == uri and first["mimeType"] == "application/json", repr(first)[:300])
            expect(len(items(json.loads(first["text"]))) == state["total"], "the export is not the whole catalog")
            for who, target in [("another principal", uri), ("a tampered link", re.sub(r"sig=.", "sig=A" if not uri.split("sig=")[1].startswith("A") else "sig=B", uri))]:
                client = reader if who == "another principal" else writer
                try:
                    await client.read_resource(target)
                except MCPError as e:
                    expect(e.code == not_found, f"{who}: code {e.code}")
                else:
                    raise CheckFailed(f"{who} read the stored export")

        await run.check("catalog_export is stored behind a link, read back, refused to others", export)

        async def unknown() -> None:
            try:
                await writer.call_tool("no_such_tool", {})
            except MCPError as e:
                expect(e.code == -32602, f"code {e.code}")
            else:
                raise CheckFailed("an unknown tool answered")

        await run.check("an unknown tool is JSON-RPC -32602", unknown)


async def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] not in ("compat", "spec")):
        print(__doc__, file=sys.stderr)
        return 2
    url, writer_token, reader_token = argv[:3]
    phase = argv[3] if len(argv) == 4 else "compat"
    run = Run()
    for mode in MODES:
        try:
            await run_mode(run, url, writer_token, reader_token, mode, phase)
        except Exception:
            run.failed.append(f"{mode}: setup")
            print(f"  FAIL {mode} setup:\n{traceback.format_exc()}", file=sys.stderr)
    print(f"Python SDK client: {run.passed} passed, {len(run.failed)} failed")
    return 0 if not run.failed else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
