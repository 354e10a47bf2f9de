"""Input required (DESIGN §10) with the official Python SDK client (PyPI ``mcp``, pinned in
requirements.txt) against ``toolwire serve``.

In both eras — ``mode="2026-07-28"`` (the gateway answers ``InputRequiredResult`` and the client
retries with its answers) and ``mode="legacy"`` (the gateway sends ``elicitation/create`` on the
connection) — a client with an elicitation callback completes ``catalog_confirm_price`` and gets
the changed price; a client without one gets the failure ``input_required``, not a hang.

Usage: python py_input.py URL WRITER_TOKEN
Exits 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from typing import Any

import mcp.types as types
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

MODES = ["2026-07-28", "legacy"]


def wire(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def client_for(url: str, token: str, mode: str, asked: list[str] | None) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})

    async def elicit(_context: Any, params: Any) -> types.ElicitResult:
        assert asked is not None
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    options: dict[str, Any] = {} if asked is None else {"elicitation_callback": elicit}
    return Client(streamable_http_client(url, http_client=http), mode=mode, raise_exceptions=True, **options)


async def run_mode(url: str, token: str, mode: str, price: float) -> None:
    asked: list[str] = []
    async with client_for(url, token, mode, asked) as client:
        await client.list_tools()
        r = wire(await client.call_tool("catalog_confirm_price", {"id": 21, "price": price}))
        assert r.get("isError") is not True, r
        assert r["structuredContent"]["newPrice"] == price, r
        assert len(asked) == 1 and asked[0].startswith("Change the price of "), asked
    async with client_for(url, token, mode, None) as bare:
        r = wire(await asyncio.wait_for(bare.call_tool("catalog_confirm_price", {"id": 22, "price": 5.5}), 10))
        assert r.get("isError") is True, r
        envelope = json.loads(r["content"][0]["text"])
        assert envelope["code"] == "input_required", envelope
        assert envelope["details"]["inputRequests"]["confirm"]["method"] == "elicitation/create", envelope


async def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    url, token = argv
    failed = []
    for mode, price in zip(MODES, [61.5, 62.75]):
        try:
            await run_mode(url, token, mode, price)
            print(f"  ok   Python SDK client, mode={mode}: the confirmation round and the failure without elicitation")
        except Exception:
            failed.append(mode)
            print(f"  FAIL mode={mode}:\n{traceback.format_exc()}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
