"""FastMCP's Client (PyPI fastmcp) against the gateway, in its two connect modes: `legacy`
(the initialize handshake, 2025-11-25) and `auto` (which adopts 2026-07-28). Every data tool
must come back with `.data` hydrated, and equal on both eras (the `{"result": ...}` wrapper of
2025-11-25 is unwrapped through `x-fastmcp-wrap-result`); the failure paths come back as errors.

Usage: fastmcp_client.py <url> <writer token>
"""

import asyncio
import sys

from fastmcp import Client
from fastmcp.exceptions import ToolError

CALLS = [
    ("catalog_search", {"query": "oak", "limit": 5}),
    ("catalog_get", {"id": 5}),
    ("catalog_count", {}),
    ("catalog_count", {"category": "chairs"}),
    ("catalog_update_price", {"id": 5, "price": 12.5, "dryRun": True}),
]

ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}


async def run(url, token, mode):
    data = {}
    async with Client(url, auth=token, mode=mode) as client:
        version = client.protocol_version
        assert version == ERAS[mode], f"{mode}: negotiated {version}"
        for name, arguments in CALLS:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, f"{mode} {name}: {result}"
            assert result.data is not None, f"{mode} {name}: .data not hydrated: {result}"
            data[(name, repr(arguments))] = result.data
        missing = await client.call_tool("catalog_get", {"id": 999999}, raise_on_error=False)
        assert missing.is_error and missing.data is None, f"{mode}: {missing}"
        try:
            await client.call_tool("catalog_search", {"limit": 0})
        except ToolError as error:
            assert "invalid" in str(error).lower(), f"{mode}: {error}"
        else:
            raise AssertionError(f"{mode}: invalid arguments were not an error")
    return data


def plain(value):
    """`.data` as plain JSON-like values (FastMCP builds dataclass-like objects from schemas)."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if hasattr(value, "__dict__"):
        return {k: plain(v) for k, v in vars(value).items()}
    return value


async def main():
    url, token = sys.argv[1], sys.argv[2]
    legacy = await run(url, token, "legacy")
    modern = await run(url, token, "auto")
    for key, value in legacy.items():
        assert plain(value) == plain(modern[key]), f"{key}: {value!r} != {modern[key]!r}"
    print(f"fastmcp: {len(legacy)} data calls hydrated and equal on 2025-11-25 and 2026-07-28")


asyncio.run(main())
