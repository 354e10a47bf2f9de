"""The official Python SDK client (PyPI ``mcp``, pinned in requirements.txt) against toolwire-mcp's
two examples over stdio: ``minimal_server`` (the typed registry) and ``rmcp_router`` (an rmcp
``#[tool_router]`` server rendering through the adapter).

Both serve the same two tools under the same server name, so each call must give exactly the same
result JSON from both, in both eras: ``mode="legacy"`` (the initialize handshake, here 2025-11-25)
and ``mode="2026-07-28"`` (which adds ``resultType`` and the ``serverInfo`` stamp). The SDK checks
``structuredContent`` against the published ``outputSchema`` itself; anything it raises fails the
run. ``generatedAt`` values are the only part compared by shape (an RFC 3339 time) instead of text.

Usage: python py_examples.py MINIMAL_SERVER RMCP_ROUTER (the two example binaries)
Exits 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import traceback
from typing import Any

from mcp import StdioServerParameters
from mcp.client import Client

MODES = ["legacy", "2026-07-28"]
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
SERVER_INFO = {"name": "calculator", "version": "1.0.0"}

# The integer fields each tool's published outputSchema requires, in tools/list order.
OUTPUTS = [["sum"], ["quotient", "remainder"]]


def envelope(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


# tools/call arguments and the result the client must see (before the era's additions).
CALLS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "add",
        {"a": 2, "b": 3},
        {
            "content": [envelope('{"success":true,"data":{"sum":5},"_meta":{"generatedAt":"NOW"}}')],
            "structuredContent": {"sum": 5},
            "_meta": {"dev.toolwire/generatedAt": "NOW"},
        },
    ),
    (
        "divide",
        {"dividend": 7, "divisor": 2},
        {
            "content": [
                envelope(
                    '{"success":true,"data":{"quotient":3,"remainder":1},'
                    '"_meta":{"generatedAt":"NOW","summary":"7 / 2"}}'
                )
            ],
            "structuredContent": {"quotient": 3, "remainder": 1},
            "_meta": {"dev.toolwire/generatedAt": "NOW"},
        },
    ),
    (
        "divide",
        {"dividend": 7, "divisor": 0},
        {
            "content": [
                envelope(
                    '{"success":false,"error":"The divisor must not be zero.","code":"invalid_arguments",'
                    '"details":{"invalid":[{"path":"/divisor","message":"must not be zero"}]},'
                    '"_meta":{"generatedAt":"NOW"}}'
                )
            ],
            "isError": True,
            "_meta": {"dev.toolwire/generatedAt": "NOW"},
        },
    ),
]


def wire(model: Any) -> dict[str, Any]:
    """The result as it came over the wire: camelCase keys, only the fields the server sent."""
    return model.model_dump(by_alias=True, exclude_unset=True, mode="json")


def stamped(value: Any) -> Any:
    """`value` with every RFC 3339 time (in strings, also inside the envelope text) set to NOW."""
    return json.loads(STAMP.sub("NOW", json.dumps(value)))


def in_era(expected: dict[str, Any], mode: str) -> dict[str, Any]:
    """What 2026-07-28 adds to every result: `resultType` and the server's name in `_meta`."""
    if mode == "legacy":
        return expected
    meta = dict(expected["_meta"], **{"io.modelcontextprotocol/serverInfo": SERVER_INFO})
    return dict(expected, _meta=meta, resultType="complete")


async def check_example(binary: str, mode: str) -> list[str]:
    """What did not hold (checked inside the session, reported after it closed)."""
    problems: list[str] = []
    server = StdioServerParameters(command=binary)
    async with Client(server, mode=mode, raise_exceptions=True) as client:
        tools = (await client.list_tools()).tools
        names = [tool.name for tool in tools]
        if names != ["add", "divide"]:
            return [f"tools/list gave {names}"]
        for tool, fields in zip(tools, OUTPUTS, strict=True):
            schema = tool.output_schema or {}
            shown = {field: schema.get("properties", {}).get(field, {}).get("type") for field in fields}
            if schema.get("type") != "object" or schema.get("required") != fields or set(shown.values()) != {"integer"}:
                problems.append(f"{tool.name} publishes the outputSchema {schema}")
        for tool, arguments, expected in CALLS:
            result = stamped(wire(await client.call_tool(tool, arguments)))
            want = in_era(expected, mode)
            if result != want:
                problems.append(
                    f"{tool} {json.dumps(arguments)}:\n got  {json.dumps(result, sort_keys=True)}"
                    f"\n want {json.dumps(want, sort_keys=True)}"
                )
    return problems


async def main(binaries: list[str]) -> int:
    failed = 0
    for binary in binaries:
        for mode in MODES:
            label = f"{binary.rsplit('/', 1)[-1]}, mode={mode}"
            try:
                problems = await check_example(binary, mode)
            except Exception:  # noqa: BLE001 - whatever the SDK raises is reported, then counted
                traceback.print_exc()
                problems = ["the Python SDK raised (traceback above)"]
            if problems:
                failed += 1
                print(f"FAIL {label}:\n  " + "\n  ".join(problems))
            else:
                print(f"ok   {label}: tools/list and {len(CALLS)} calls as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main(sys.argv[1:])))
