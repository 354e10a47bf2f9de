"""A plain MCP client over Streamable HTTP (JSON-RPC by hand, no SDK: it must see exactly what the
server sends) at one revision, and the checks of what it receives against the official schemas
in crates/toolwire-check/spec/mcp/. Used by upstreams.py.

Handshake revisions connect with ``initialize``; 2026-07-28 is stateless: every request carries
its revision, client info and capabilities in ``_meta`` and the ``MCP-Protocol-Version``,
``Mcp-Method`` and ``Mcp-Name`` headers.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from jsonschema import validators

REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
STATELESS = "2026-07-28"
SPEC = Path(__file__).resolve().parent.parent.parent / "crates" / "toolwire-check" / "spec" / "mcp"
BLOCKS = {  # the content block types of each revision
    "2024-11-05": {"text", "image", "resource"},
    "2025-03-26": {"text", "image", "audio", "resource"},
}
TIMEOUT = 60  # seconds for one answer: a hang fails a check instead of the run


class RpcError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"JSON-RPC error {error.get('code')}: {error.get('message')}")
        self.code = error.get("code")


class Client:
    """One client (a name and a bearer token) of the endpoint `url`, at `revision`."""

    def __init__(self, url: str, revision: str, token: str, name: str) -> None:
        self.url, self.revision, self.token, self.name = url, revision, token, name
        self.session: str | None = None
        self.next_id = 1
        if revision != STATELESS:
            init = self.request("initialize", {"protocolVersion": revision, "capabilities": {},
                                               "clientInfo": {"name": name, "version": "1.0"}})
            if init.get("protocolVersion") != revision:
                raise RuntimeError(f"initialize at {revision} answered {init.get('protocolVersion')}")
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, body: dict[str, Any]) -> dict[str, Any] | None:
        method, params = body["method"], body.get("params", {})
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "Authorization": f"Bearer {self.token}"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        if self.revision >= "2025-06-18" and method != "initialize":
            headers["MCP-Protocol-Version"] = self.revision
        if self.revision == STATELESS:
            headers["Mcp-Method"] = method
            name = params.get("name") if method == "tools/call" else params.get("uri")
            if isinstance(name, str):
                headers["Mcp-Name"] = name
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers)
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            self.session = response.headers.get("mcp-session-id") or self.session
            text = response.read().decode()
            kind = response.headers.get("content-type") or ""
        if not text:
            return None
        if kind.startswith("text/event-stream"):  # the answer is the event carrying our id
            events = [json.loads(line[5:]) for line in text.splitlines()
                      if line.startswith("data:") and line[5:].strip()]
            return next((e for e in events if e.get("id") == body.get("id")), None)
        return json.loads(text)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The result, or `RpcError`."""
        if self.revision == STATELESS:
            params = {**params, "_meta": {
                "io.modelcontextprotocol/protocolVersion": self.revision,
                "io.modelcontextprotocol/clientInfo": {"name": self.name, "version": "1.0"},
                "io.modelcontextprotocol/clientCapabilities": {}}}
        answer = self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        self.next_id += 1
        if answer is None:
            raise RuntimeError(f"{method}: no answer")
        if "error" in answer:
            raise RpcError(answer["error"])
        return answer["result"]

    def list_tools(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Every tool, following `nextCursor`; and the pages as received."""
        tools, pages, cursor = [], [], None
        while True:
            page = self.request("tools/list", {"cursor": cursor} if cursor else {})
            pages.append(page)
            tools += page.get("tools", [])
            cursor = page.get("nextCursor")
            if not cursor:
                return tools, pages

    def close(self) -> None:
        if self.session:
            request = urllib.request.Request(self.url, method="DELETE", headers={
                "Mcp-Session-Id": self.session, "Authorization": f"Bearer {self.token}"})
            try:
                urllib.request.urlopen(request, timeout=TIMEOUT).close()
            except urllib.error.HTTPError:
                pass


def texts(result: dict[str, Any]) -> str:
    """The text blocks of a result, one per line."""
    return "\n".join(b["text"] for b in result.get("content", []) if b.get("type") == "text")


def errors_of(validator: Any, value: Any) -> list[str]:
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(value)]


_official: dict[tuple[str, str], Any] = {}


def official_errors(revision: str, name: str, value: Any) -> list[str]:
    """Violations of the definition `name` of the revision's official schema."""
    if (revision, name) not in _official:
        doc = json.loads((SPEC / revision / "schema.json").read_text())
        defs = "$defs" if "$defs" in doc else "definitions"
        cls = validators.validator_for(doc)
        _official[(revision, name)] = cls({**doc, "$ref": f"#/{defs}/{name}"}, format_checker=cls.FORMAT_CHECKER)
    return errors_of(_official[(revision, name)], value)


def schema_errors(schema: dict[str, Any], value: Any) -> list[str]:
    """Violations of a published outputSchema (2020-12 unless it says otherwise)."""
    return errors_of(validators.validator_for(schema, default=validators.Draft202012Validator)(schema), value)


def listing_errors(revision: str, pages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[str]:
    """`tools/list` against the official schema, and outputSchemas only where the revision has them."""
    problems = [f"tools/list {e}" for page in pages for e in official_errors(revision, "ListToolsResult", page)]
    for tool in tools:
        out = tool.get("outputSchema")
        if out is not None and revision < "2025-06-18":
            problems.append(f"{tool['name']}: outputSchema on {revision}, which has none")
        if out is not None and revision in ("2025-06-18", "2025-11-25") and out.get("type") != "object":
            problems.append(f"{tool['name']}: outputSchema root is not an object on {revision}")
    return problems


def result_errors(revision: str, tool: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """A CallToolResult against the official schema, the fields the revision has and the tool's
    published outputSchema (which clients enforce: a success without structuredContent fails)."""
    problems = official_errors(revision, "CallToolResult", result)
    allowed = BLOCKS.get(revision, {"text", "image", "audio", "resource", "resource_link"})
    problems += [f"/content/{i}: a {b.get('type')} block does not exist in {revision}"
                 for i, b in enumerate(result.get("content", [])) if b.get("type") not in allowed]
    if result.get("isError") is False:
        problems.append("isError: false (toolwire leaves it out on a success)")
    if revision == STATELESS and result.get("resultType") != "complete":
        problems.append(f"resultType is {result.get('resultType')!r}, not complete")
    structured = result.get("structuredContent")
    if "structuredContent" in result and revision < "2025-06-18":
        problems.append(f"structuredContent on {revision}, which has none")
    if structured is not None and revision in ("2025-06-18", "2025-11-25") and not isinstance(structured, dict):
        problems.append(f"structuredContent is not an object on {revision}")
    out = tool.get("outputSchema")
    if out is not None and structured is not None:
        problems += [f"structuredContent vs outputSchema: {e}" for e in schema_errors(out, structured)]
    if out is not None and structured is None and not result.get("isError"):
        problems.append("a success without structuredContent from a tool with an outputSchema")
    return problems
