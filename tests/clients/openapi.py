"""toolwire in front of a REST API nobody wrote for MCP: a FastAPI app bridged through its OpenAPI
documents (DESIGN §16).

Starts the FastAPI app in ``openapi/app.py`` on a free port, converts its OpenAPI 3.1 document
into a 3.0.3 rendition (``openapi/to_30.py``, at test time, so the two cannot drift) and writes a
toolwire.toml with two static tokens and two ``[[openapi]]`` sources over the same app: ``nodes31``
(the 3.1 document fetched by URL, ``writes = true``, tools ``v31_<operationId>``) and ``nodes30``
(the 3.0 rendition from a file, read-only, tools ``v30_<operationId>``). ``serve --check`` of it
must list every generated tool. Starts ``toolwire serve`` on a free port and, with a plain
JSON-RPC client (``mcp_rpc.py``), for every client revision 2024-11-05 … 2026-07-28 and both
sources:

- lists the tools, valid against the revision's official schema: every read-only operation of the
  app in both sources, the writes (``createNode``, ``deleteNode``) only under ``v31_``; input
  schemas of the path, query and required header parameters and ``body``; output schemas with the
  recursive ``Node`` kept as a ``$ref`` into ``$defs``, nothing of OpenAPI left (no
  ``#/components/`` reference, no ``nullable``);
- calls them: each result valid against the official ``CallToolResult``, the revision's fields and
  the published ``outputSchema``; the data equal to what the app answers when asked directly; the
  API's errors as results with their code and the API's message (404 → ``not_found``, 422 →
  ``invalid_arguments``, 403 → ``missing_privilege``, 500 → ``tool_error`` or
  ``upstream_unavailable``, 429 → ``upstream_unavailable`` with its ``Retry-After``); the
  ``Link: rel="next"`` page as a next cursor the model reads; the ~600 KB report stored behind a
  link (a ``result_too_large`` failure: the operation publishes an ``outputSchema``, DESIGN §4),
  read back whole by its principal and refused to another; text and PNG answers as text and
  image blocks; a 204 as a success without data; arguments outside the input schema refused as
  ``invalid_arguments`` before any request reaches the app (its request counts do not move);

then calls through the official Python SDK client (``mcp``), which validates what it receives:
``v30_getNode`` in the legacy era, ``v31_getNode`` and ``v31_listNodes`` (an array) stateless on
2026-07-28, checking the data.

Usage: python openapi.py TOOLWIRE_BINARY
Prints one line per source × revision; exits 1 naming every failed check.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "openapi"))

import to_30  # noqa: E402
from mcp_rpc import REVISIONS, STATELESS, Client, RpcError, listing_errors, result_errors, texts  # noqa: E402
from upstreams import ALICE, BOB, LIMIT, start, toml  # noqa: E402

CLIENT = "toolwire-openapi-test"  # no host profile claims it: `generic`
PREFIX = "dev.toolwire"
GATEWAY_HEADER = "toolwire-nodes31"  # what nodes31's `headers` sends as X-Gateway
READS = {"getNode", "listNodes", "search", "forbidden", "explode", "rateLimited", "getReport",
         "getNodeText", "getNodeIcon", "getTenant"}
WRITES = {"createNode", "deleteNode"}
NO_SCHEMA = {"explode", "getNodeText", "getNodeIcon", "deleteNode"}  # no JSON schema for a 2xx answer


@dataclass
class Source:
    name: str
    prefix: str
    writes: bool


SOURCES = [Source("nodes31", "v31_", True), Source("nodes30", "v30_", False)]


@dataclass
class Cell:
    """One source at one revision."""
    listed: int = 0
    calls: int = 0
    problems: list[str] = field(default_factory=list)


# --- the app ----------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class App:
    """The FastAPI app, asked directly."""

    def __init__(self, log: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.proc = subprocess.Popen([sys.executable, str(HERE / "openapi" / "app.py"), str(self.port)],
                                     stdout=log.open("w"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.counts()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"the FastAPI app did not start; its log:\n{log.read_text()[-4000:]}")
                time.sleep(0.1)

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.base + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
        except urllib.error.HTTPError as e:
            return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()

    def json(self, path: str, headers: dict[str, str] | None = None) -> Any:
        status, _, body = self.get(path, headers)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}: {body[:200]!r}")
        return json.loads(body)

    def counts(self) -> dict[str, int]:
        """Requests received per operation path (this question and the document left out)."""
        with urllib.request.urlopen(self.base + "/_count", timeout=10) as r:
            counts = json.loads(r.read())
        return {path: n for path, n in counts.items() if path not in ("/_count", "/openapi.json")}

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def documents(app: App, tmp: Path) -> tuple[Path, list[str]]:
    """The 3.0 rendition of the app's document, written to a file; and what is wrong with either."""
    doc = app.json("/openapi.json")
    problems = [] if str(doc.get("openapi", "")).startswith("3.1") else [f"/openapi.json is {doc.get('openapi')}"]
    node = doc.get("components", {}).get("schemas", {}).get("Node", {})
    if node.get("properties", {}).get("children", {}).get("items", {}).get("$ref") != "#/components/schemas/Node":
        problems.append("the app's Node is not recursive in its document")
    ids = {op.get("operationId") for item in doc.get("paths", {}).values() for op in item.values()
           if isinstance(op, dict)}
    if ids != READS | WRITES:
        problems.append(f"the app's operationIds are {sorted(ids)}")
    rendition = to_30.convert(doc)
    problems += [f"3.0 rendition: {p}" for p in to_30.problems_30(rendition)]
    path = tmp / "openapi-3.0.json"
    path.write_text(json.dumps(rendition, indent=2))
    return path, problems


def write_config(path: Path, app: App, spec30: Path) -> None:
    lines = ["demo_tools = false", ""]
    for token, principal in [(ALICE, "alice"), (BOB, "bob")]:
        lines += ["[[auth.tokens]]", f"token = {toml(token)}", f"principal = {toml(principal)}", ""]
    sources = [
        {"name": "nodes31", "spec": f"{app.base}/openapi.json", "base_url": app.base, "tool_prefix": "v31_",
         "writes": True, "headers": {"X-Gateway": {"value": GATEWAY_HEADER}}},
        {"name": "nodes30", "spec": str(spec30), "base_url": app.base, "tool_prefix": "v30_"},
    ]
    for source in sources:
        lines += ["[[openapi]]", *(f"{k} = {toml(v)}" for k, v in source.items()), "timeout_ms = 20000", ""]
    path.write_text("\n".join(lines))


# --- reading results --------------------------------------------------------------------------

def try_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def envelope(result: dict[str, Any]) -> dict[str, Any] | None:
    """Phase compat (DESIGN §3): the first text block is the legacy envelope."""
    first = next((b.get("text", "") for b in result.get("content", []) if b.get("type") == "text"), "")
    value = try_json(first)
    return value if isinstance(value, dict) and isinstance(value.get("success"), bool) else None


def is_wrapping(schema: Any) -> bool:
    return (isinstance(schema, dict) and schema.get("type") == "object"
            and list(schema.get("properties", {})) == ["result"] and schema.get("required") == ["result"])


def data_of(revision: str, tool: dict[str, Any], result: dict[str, Any]) -> Any:
    """The data of a success, from the text copy (the compat envelope's `data`, or the spec phase's
    first block) and from structuredContent (unwrapped as the published schema says): both must
    agree. Raises ValueError otherwise."""
    env = envelope(result)
    blocks = [b["text"] for b in result.get("content", []) if b.get("type") == "text"]
    from_text = env.get("data") if env is not None else try_json(blocks[0]) if blocks else None
    if "structuredContent" not in result:
        return from_text
    sc = result["structuredContent"]
    if revision != STATELESS and (is_wrapping(tool.get("outputSchema"))
                                  or tool.get("outputSchema") is None and not isinstance(from_text, dict)):
        sc = sc.get("result") if isinstance(sc, dict) else sc
    if sc != from_text:
        raise ValueError(f"text copy {json.dumps(from_text)[:200]} and structuredContent {json.dumps(sc)[:200]} "
                         "disagree")
    return sc


def failure_of(result: dict[str, Any]) -> dict[str, Any]:
    """{code, message, details} of a failure: from the compat envelope (`error`, `code`,
    `details`), else the spec phase's blocks (the message, then `{"error": {code, details}}`),
    else structuredContent's `error`."""
    env = envelope(result)
    if env is not None and env.get("success") is False:
        error = env.get("error")
        if isinstance(error, dict):
            return {"code": error.get("code") or env.get("code"), "message": error.get("message", ""),
                    "details": {k: v for k, v in error.items() if k not in ("code", "message")} or env.get("details")}
        return {"code": env.get("code"), "message": error or "", "details": env.get("details")}
    blocks = [b["text"] for b in result.get("content", []) if b.get("type") == "text"]
    for text in blocks:
        value = try_json(text)
        if isinstance(value, dict) and isinstance(value.get("error"), dict) and "code" in value["error"]:
            message = next((t for t in blocks if not isinstance(try_json(t), (dict, list))), "")
            return {"code": value["error"]["code"], "message": message, "details": value["error"].get("details")}
    sc = result.get("structuredContent")
    if isinstance(sc, dict) and isinstance(sc.get("error"), dict):
        return {"code": sc["error"].get("code"), "message": sc["error"].get("message", ""),
                "details": sc["error"].get("details")}
    return {"code": None, "message": texts(result), "details": None}


def find_keys(value: Any, wanted: Callable[[str], bool]) -> list[tuple[str, Any]]:
    """Every (key, value) pair at any depth whose key `wanted` accepts."""
    if isinstance(value, dict):
        return [(k, v) for k, v in value.items() if wanted(k)] + \
            [kv for v in value.values() for kv in find_keys(v, wanted)]
    if isinstance(value, list):
        return [kv for v in value for kv in find_keys(v, wanted)]
    return []


def is_failure(code: str | set[str], *messages: str) -> Callable[[dict[str, Any]], list[str]]:
    """isError with `code` (or one of them), each of `messages` in the error's message, and the
    message in the text blocks (what a model reads on every revision)."""
    codes = {code} if isinstance(code, str) else code

    def check(result: dict[str, Any]) -> list[str]:
        if result.get("isError") is not True:
            return [f"not an error result: {texts(result)[:300]}"]
        failure = failure_of(result)
        problems = [] if failure["code"] in codes else [
            f"code {failure['code']!r}, expected {' or '.join(sorted(codes))}"]
        problems += [f"{m!r} is not in the message {failure['message']!r:.300}" for m in messages
                     if m not in failure["message"]]
        problems += [f"{m!r} is not in the text blocks" for m in messages if m not in texts(result)]
        sc = result.get("structuredContent")
        code = sc.get("error", {}).get("code") if isinstance(sc, dict) and isinstance(sc.get("error"), dict) else None
        if code is not None and code != failure["code"]:
            problems.append(f"structuredContent's code {code!r} is not the text's {failure['code']!r}")
        return problems
    return check


def pagination(result: dict[str, Any]) -> dict[str, Any] | None:
    value = result.get("_meta", {}).get(f"{PREFIX}/pagination")
    return value if isinstance(value, dict) else None


# --- the checks -------------------------------------------------------------------------------

def pointer(root: Any, ref: str) -> Any:
    """What a local `$ref` points at inside `root` (None when it does not resolve)."""
    if not ref.startswith("#/"):
        return None
    node = root
    for part in ref[2:].split("/"):
        node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
    return node


def schema_refs(schema: Any) -> tuple[list[str], list[str]]:
    """The `$ref`s of a published schema, and those that do not resolve inside it."""
    refs = [v for k, v in find_keys(schema, lambda k: k == "$ref") if isinstance(v, str)]
    return refs, [ref for ref in refs if pointer(schema, ref) is None]


def definition_problems(revision: str, source: Source, by_name: dict[str, dict[str, Any]]) -> list[str]:
    """DESIGN §16's tool definitions, for the source's tools."""
    p = source.prefix
    problems = []
    for name, tool in by_name.items():
        if not name.startswith(p):
            continue
        op = name[len(p):]
        if not tool.get("description"):
            problems.append(f"{name}: no description")
        for kind in ("inputSchema", "outputSchema"):
            schema = tool.get(kind)
            if schema is None:
                continue
            text = json.dumps(schema)
            if "#/components/" in text:
                problems.append(f"{name}: {kind} keeps a reference into the OpenAPI document: {text[:200]}")
            if find_keys(schema, lambda k: k in ("nullable", "discriminator", "xml", "example")):
                problems.append(f"{name}: {kind} keeps an OpenAPI-only keyword: {text[:300]}")
            refs, unresolved = schema_refs(schema)
            if unresolved:
                problems.append(f"{name}: {kind} has $refs that do not resolve inside it: {unresolved}")
        if op in NO_SCHEMA and "outputSchema" in tool:
            problems.append(f"{name}: an outputSchema, but the operation declares no JSON answer")
        if revision >= "2025-03-26":
            hints = tool.get("annotations", {})
            if op in READS and hints.get("readOnlyHint") is not True:
                problems.append(f"{name}: a GET without readOnlyHint: {hints}")
            if op == "deleteNode" and (hints.get("destructiveHint") is not True or hints.get("readOnlyHint")):
                problems.append(f"{name}: a DELETE not marked destructive: {hints}")
            if op == "createNode" and hints.get("readOnlyHint"):
                problems.append(f"{name}: a POST marked read-only: {hints}")

    def inputs(op: str, props: dict[str, str], required: set[str]) -> None:
        tool = by_name.get(p + op)
        if tool is None:
            return
        schema = tool.get("inputSchema", {})
        have = schema.get("properties", {})
        for prop, kind in props.items():
            sub = have.get(prop)
            for _ in range(8):  # a $ref into the tool's $defs, followed
                if isinstance(sub, dict) and isinstance(sub.get("$ref"), str) and pointer(schema, sub["$ref"]):
                    sub = pointer(schema, sub["$ref"])
            if prop not in have:
                problems.append(f"{p}{op}: no input property {prop!r} in {json.dumps(schema)[:300]}")
            elif kind and sub.get("type") != kind and kind not in json.dumps(sub):
                problems.append(f"{p}{op}: input {prop!r} is not of type {kind}: {json.dumps(sub)[:200]}")
        if set(schema.get("required", [])) != required:
            problems.append(f"{p}{op}: required inputs {schema.get('required')}, expected {sorted(required)}")

    inputs("getNode", {"node_id": "integer"}, {"node_id"})
    inputs("listNodes", {"limit": "integer", "offset": "integer", "tag": "string"}, set())
    inputs("search", {"q": "string"}, {"q"})
    inputs("getTenant", {"X-Tenant": "string"}, {"X-Tenant"})
    inputs("createNode", {"body": "object"}, {"body"})
    inputs("deleteNode", {"node_id": "integer"}, {"node_id"})
    inputs("getReport", {}, set())
    node = by_name.get(p + "getNode", {}).get("outputSchema")
    if revision >= "2025-06-18":
        if node is None:
            problems.append(f"{p}getNode: no outputSchema")
        elif not schema_refs(node)[0]:
            problems.append(f"{p}getNode: the recursive Node was unrolled (no $ref): {json.dumps(node)[:300]}")
    return problems


def offload_problems(url: str, revision: str, result: dict[str, Any], report: Any) -> list[str]:
    """DESIGN §4 and §6, as upstreams.py's export: the ~600 KB report is a stub with a link (a
    `result_too_large` failure, since getReport publishes an outputSchema), read back whole by its
    principal and refused to another with the same "not found" as any refusal."""
    problems = is_failure("result_too_large")(result)
    uris = re.findall(r"toolwire://results/[^\s\"')]+", texts(result))
    links = [b["uri"] for b in result.get("content", []) if b.get("type") == "resource_link"
             and str(b.get("uri", "")).startswith("toolwire://results/")]
    if not uris:
        problems.append(f"no stored-result link in the text blocks: {texts(result)[:300]}")
    if "structuredContent" in result:
        problems.append("structuredContent in the offloaded stub")
    if len(json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode()) > LIMIT:
        problems.append(f"the stub is over {LIMIT} bytes")
    if revision >= "2025-06-18" and not links:
        problems.append("no resource_link block to the stored result")
    uri = links[0] if links else uris[0].rstrip(".,;") if uris else None
    if uri is None:
        return problems
    read = Client(url, revision, ALICE, CLIENT).request("resources/read", {"uri": uri})
    first = read["contents"][0]
    if first.get("mimeType") != "application/json" or try_json(first.get("text", "")) != report:
        problems.append(f"alice read back something else: {json.dumps(first)[:200]}")
    try:
        Client(url, revision, BOB, CLIENT).request("resources/read", {"uri": uri})
        problems.append("bob read alice's report")
    except RpcError as e:
        want = -32602 if revision == STATELESS else -32002
        if e.code != want:
            problems.append(f"bob was refused with {e.code}, not {want}")
    return problems


def retry_after_problems(result: dict[str, Any]) -> list[str]:
    """The 429's Retry-After (7 s) in the error's details, and so in what the model reads."""
    details = failure_of(result)["details"]
    seen = [(k, v) for k, v in find_keys(details, lambda k: "retry" in k.lower())
            if v in (7, "7") or "ms" in k.lower() and v in (7000, "7000")]
    if not seen:
        return [f"no Retry-After of 7 in the error's details: {json.dumps(details)[:300]}"]
    key = seen[0][0]
    return [] if key in texts(result) else [f"the details' {key!r} is not in the text blocks"]


def run_source(url: str, app: App, revision: str, client: Client, source: Source,
               by_name: dict[str, dict[str, Any]], cell: Cell) -> None:
    p = source.prefix
    own = {n[len(p):] for n in by_name if n.startswith(p)}
    cell.listed = len(own)
    expected = READS | (WRITES if source.writes else set())
    cell.problems += [f"{p}{op} is not listed" for op in sorted(expected - own)]
    cell.problems += [f"{p}{op} is listed but should not be" for op in sorted(own - expected)]
    cell.problems += definition_problems(revision, source, by_name)

    def call(op: str, arguments: dict[str, Any], check: Callable[[dict[str, Any]], list[str]],
             reaches_app: bool = True) -> dict[str, Any] | None:
        name = p + op
        where = f"{name} {json.dumps(arguments, ensure_ascii=False)[:80]}"
        if name not in by_name:
            return None
        cell.calls += 1
        before = app.counts()
        try:
            result = client.request("tools/call", {"name": name, "arguments": arguments})
        except Exception as e:  # a JSON-RPC error or no answer in time: an API's failure is a result
            cell.problems.append(f"{where}: {type(e).__name__}: {e}")
            return None
        after = app.counts()
        problems = result_errors(revision, by_name[name], result)
        if not reaches_app and after != before:
            paths = sorted(k for k in after if after[k] != before.get(k))
            problems.append(f"the app received a request for {', '.join(paths)}: toolwire did not validate first")
        try:
            problems += check(result)
        except Exception as e:  # noqa: BLE001 (a check that cannot read the result fails)
            problems.append(f"{type(e).__name__}: {e}")
        cell.problems += [f"{where}: {problem}" for problem in problems]
        return result

    def is_data(op: str, want: Any) -> Callable[[dict[str, Any]], list[str]]:
        def check(result: dict[str, Any]) -> list[str]:
            if result.get("isError"):
                return [f"an error result: {texts(result)[:300]}"]
            got = data_of(revision, by_name[p + op], result)
            return [] if got == want else [f"data {json.dumps(got)[:300]}, the app answers {json.dumps(want)[:300]}"]
        return check

    invalid = is_failure("invalid_arguments")

    def invalid_with_details(result: dict[str, Any]) -> list[str]:
        problems = invalid(result)
        found = failure_of(result)["details"] or {}
        if not problems and not (isinstance(found, dict) and found.get("invalid")):
            problems.append(f"no details.invalid: {json.dumps(found)[:200]}")
        return problems

    # getNode: the recursive model, a 404, an argument of the wrong type
    call("getNode", {"node_id": 1}, is_data("getNode", app.json("/nodes/1")))
    call("getNode", {"node_id": 2}, is_data("getNode", app.json("/nodes/2")))
    call("getNode", {"node_id": 999}, is_failure("not_found", "Node 999 does not exist.", "404"))
    call("getNode", {"node_id": "abc"}, invalid_with_details, reaches_app=False)
    call("getNode", {}, invalid, reaches_app=False)

    # listNodes: query parameters, an array, the next page
    def next_page(want: Any, more: bool) -> Callable[[dict[str, Any]], list[str]]:
        def check(result: dict[str, Any]) -> list[str]:
            problems = is_data("listNodes", want)(result)
            cursor = (pagination(result) or {}).get("nextCursor")
            if more and not (isinstance(cursor, str) and cursor):
                problems.append(f"no {PREFIX}/pagination nextCursor in _meta: {json.dumps(result.get('_meta'))[:300]}")
            elif more and cursor not in texts(result):
                problems.append(f"the next cursor {cursor!r} is not in the text blocks")
            if not more and cursor:
                problems.append(f"a next cursor {cursor!r} on the last page")
            return problems
        return check

    call("listNodes", {"limit": 3}, next_page(app.json("/nodes?limit=3"), True))
    call("listNodes", {}, next_page(app.json("/nodes"), True))
    call("listNodes", {"limit": 5, "offset": 10}, next_page(app.json("/nodes?limit=5&offset=10"), False))
    call("listNodes", {"tag": "leaf", "limit": 50}, next_page(app.json("/nodes?tag=leaf&limit=50"), False))
    call("listNodes", {"limit": 0}, invalid, reaches_app=False)  # exclusiveMinimum 0 (3.0: the boolean form)
    call("listNodes", {"limit": "abc"}, invalid, reaches_app=False)

    # the API's own errors
    call("search", {"q": "lea"}, is_data("search", app.json("/search?q=lea")))
    call("search", {"q": "ab"}, is_failure("invalid_arguments",
                                           "The search text q must be at least 3 characters long.", "422"))
    call("forbidden", {}, is_failure("missing_privilege", "Only administrators may read the secret.", "403"))
    call("explode", {}, is_failure({"tool_error", "upstream_unavailable"}, "The reactor core melted.", "500"))
    call("rateLimited", {}, lambda r: is_failure("upstream_unavailable", "Slow down: at most 3 calls a minute.",
                                                 "429")(r) + retry_after_problems(r))

    # a required header parameter; nodes31's configured header reaches the app, nodes30 sends none
    tenant = {"tenant": "acme", "gateway": GATEWAY_HEADER if source.name == "nodes31" else None}
    call("getTenant", {"X-Tenant": "acme"}, is_data("getTenant", tenant))
    call("getTenant", {}, invalid, reaches_app=False)

    # text and image answers
    def has_text(result: dict[str, Any]) -> list[str]:
        blocks = [b.get("text") for b in result.get("content", []) if b.get("type") == "text"]
        problems = [] if not result.get("isError") else [f"an error result: {texts(result)[:300]}"]
        return problems + ([] if "Node 7: twig b1" in blocks else [f"no text block 'Node 7: twig b1': {blocks}"])

    def has_icon(result: dict[str, Any]) -> list[str]:
        png = base64.b64encode(app.get("/nodes/1/icon")[2]).decode()
        ok = any(b.get("type") == "image" and b.get("mimeType") == "image/png" and b.get("data") == png
                 for b in result.get("content", []))
        return [] if ok and not result.get("isError") else [
            f"no image/png block of the icon: {json.dumps(result)[:300]}"]

    call("getNodeText", {"node_id": 7}, has_text)
    call("getNodeIcon", {"node_id": 1}, has_icon)

    # the ~600 KB report, offloaded
    report = app.json("/report")
    result = call("getReport", {}, lambda r: [])
    if result is not None:
        cell.problems += [f"{p}getReport: {e}" for e in offload_problems(url, revision, result, report)]

    # writes: only nodes31 has them; a body, a 201, a 204
    if not source.writes:
        try:
            client.request("tools/call", {"name": p + "createNode", "arguments": {"body": {"name": "x"}}})
            cell.problems.append(f"{p}createNode answered: it is not a tool of a read-only source")
        except RpcError as e:
            if e.code != -32602:
                cell.problems.append(f"{p}createNode: JSON-RPC {e.code}, not -32602 (unknown tool)")
        return
    created: dict[str, Any] = {}

    def made(result: dict[str, Any]) -> list[str]:
        if result.get("isError"):
            return [f"an error result: {texts(result)[:300]}"]
        data = data_of(revision, by_name[p + "createNode"], result)
        created.update(data if isinstance(data, dict) else {})
        if not isinstance(data, dict) or not isinstance(data.get("id"), int):
            return [f"no node in {json.dumps(data)[:300]}"]
        direct = app.json(f"/nodes/{data['id']}")
        return [] if data == direct else [f"created {json.dumps(data)}, the app has {json.dumps(direct)}"]

    call("createNode", {"body": {"name": f"made at {revision}", "parent_id": 9, "tags": ["new"]}}, made)
    call("createNode", {"body": {"note": "no name"}}, invalid, reaches_app=False)
    call("createNode", {"name": "not under body"}, invalid, reaches_app=False)
    if "id" in created:
        def gone(result: dict[str, Any]) -> list[str]:
            problems = [f"an error result: {texts(result)[:300]}"] if result.get("isError") else []
            if "structuredContent" in result:
                problems.append(f"structuredContent for a 204: {json.dumps(result['structuredContent'])[:200]}")
            if app.get(f"/nodes/{created['id']}")[0] != 404:
                problems.append(f"node {created['id']} is still there")
            return problems
        call("deleteNode", {"node_id": created["id"]}, gone)
        call("deleteNode", {"node_id": created["id"]},
             is_failure("not_found", f"Node {created['id']} does not exist."))


def run_revision(url: str, app: App, revision: str, cells: dict[tuple[str, str], Cell]) -> None:
    client = Client(url, revision, ALICE, CLIENT)
    tools, pages = client.list_tools()
    cells[("tools/list", revision)].listed = len(tools)
    cells[("tools/list", revision)].problems += listing_errors(revision, pages, tools)
    by_name = {t["name"]: t for t in tools}
    for source in SOURCES:
        run_source(url, app, revision, client, source, by_name, cells[(source.name, revision)])
    client.close()


# --- the official Python SDK ------------------------------------------------------------------

async def sdk_calls(url: str, app: App) -> list[str]:
    """Calls in both eras through the official Python SDK client, which validates what it receives
    (its models of the revision, structuredContent against the outputSchema)."""
    from mcp.client import Client as SdkClient
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    problems = []
    for mode, name, arguments, want in [
        ("legacy", "v30_getNode", {"node_id": 1}, app.json("/nodes/1")),
        ("2026-07-28", "v31_getNode", {"node_id": 3}, app.json("/nodes/3")),
        ("2026-07-28", "v31_listNodes", {"limit": 2}, app.json("/nodes?limit=2")),
    ]:
        try:
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {ALICE}"})
            async with SdkClient(streamable_http_client(url, http_client=http), mode=mode,
                                 raise_exceptions=True) as client:
                await client.list_tools()
                result = await client.call_tool(name, arguments)
            if result.is_error or result.structured_content != want:
                problems.append(f"SDK {mode} {name}: {result.model_dump(by_alias=True, exclude_none=True)!r:.400}")
        except Exception as e:  # noqa: BLE001 (whatever the SDK raises fails the check)
            problems.append(f"SDK {mode} {name}: {type(e).__name__}: {e}")
    return problems


def serve_check(binary: str, tmp: Path) -> list[str]:
    """`serve --check` loads both sources and lists the generated tools (DESIGN §16), each name whole."""
    check = subprocess.run([binary, "serve", "--check", "--config", str(tmp / "toolwire.toml"),
                            "--data-dir", str(tmp / "check-data")], capture_output=True, text=True, timeout=120)
    output = check.stdout + check.stderr
    if check.returncode != 0:
        return [f"exit {check.returncode}: {output[-2000:]}"]
    names = [s.prefix + op for s in SOURCES for op in sorted(READS | (WRITES if s.writes else set()))]
    return [f"{name} is not in the tool list it prints" for name in names
            if not re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", output)]


# --- main -------------------------------------------------------------------------------------

def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[0])
    tmp = Path(tempfile.mkdtemp(prefix="toolwire-openapi-"))
    failures: list[str] = []
    app = proc = None
    try:
        to_30.self_test()
        app = App(tmp / "app.log")
        spec30, problems = documents(app, tmp)
        failures += [f"documents: {p}" for p in problems]
        for problem in problems:
            print(f"FAIL documents: {problem}")
        write_config(tmp / "toolwire.toml", app, spec30)
        problems = serve_check(binary, tmp)
        failures += [f"serve --check: {p}" for p in problems]
        for problem in problems:
            print(f"FAIL serve --check: {problem}")
        proc, url = start(binary, tmp / "toolwire.toml", tmp / "data", tmp / "toolwire.log")
        print(f"toolwire serving the FastAPI app on {app.base} as {len(SOURCES)} OpenAPI sources on {url}")
        cells = {(s, r): Cell() for s in ["tools/list", *(s.name for s in SOURCES)] for r in REVISIONS}
        for revision in REVISIONS:
            run_revision(url, app, revision, cells)
        for (source, revision), cell in cells.items():
            status = "ok" if not cell.problems else f"{len(cell.problems)} failed"
            calls = f", {cell.calls:>2} calls" if source != "tools/list" else ""
            print(f"{source:<10} {revision}  {cell.listed:>2} tools listed{calls}: {status}")
            for problem in cell.problems:
                print(f"  FAIL {problem}")
                failures.append(f"{source} @ {revision}: {problem}")
        sdk = asyncio.run(sdk_calls(url, app))
        print(f"official Python SDK client: {'ok' if not sdk else f'{len(sdk)} failed'}")
        for problem in sdk:
            print(f"  FAIL {problem}")
        failures += sdk
    except Exception as e:  # noqa: BLE001 (reported with the logs)
        failures.append(f"{type(e).__name__}: {e}")
        print(f"FAIL {type(e).__name__}: {e}")
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()
        if app is not None:
            app.stop()
        for log in ("toolwire.log", "app.log"):
            if failures and (tmp / log).exists():
                print(f"--- {log}\n{(tmp / log).read_text()[-4000:]}", file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed (the FAIL lines above)", file=sys.stderr)
        return 1
    print("both OpenAPI sources answered every revision as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
