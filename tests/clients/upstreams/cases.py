"""The calls upstreams.py makes through toolwire, by upstream, and what each must come back as.

Every tool of every upstream has at least one case (its arguments hand-written); a case may add
a check of the result beyond the schemas, per DESIGN §2–§5 and §15 for the fixture servers. A
check takes the revision and the result and returns what is wrong with it.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any, Callable

import legacy_server
from mcp_rpc import STATELESS, texts

Check = Callable[[str, dict[str, Any]], list[str]]


@dataclass
class Case:
    tool: str  # the upstream's own name
    arguments: dict[str, Any]
    expect: str = "success"  # success | error | any
    check: Check | None = None
    why: str = ""  # what the case is about, shown when it fails


def structured_for(revision: str, data: Any) -> Any:
    """DESIGN §3, for a tool declaring no schema or an object one: the structuredContent of a
    success with `data` (None: absent)."""
    if revision < "2025-06-18":
        return None
    if revision == STATELESS or isinstance(data, dict):
        return data
    return {"result": data}


def is_data(data: Any) -> Check:
    def check(revision: str, result: dict[str, Any]) -> list[str]:
        want, got = structured_for(revision, data), result.get("structuredContent")
        return [] if got == want else [f"structuredContent {json.dumps(got)[:300]}, expected {json.dumps(want)[:300]}"]
    return check


def is_failure(message: str, code: str, details: dict[str, Any] | None = None, declared: bool = False) -> Check:
    """isError, the message in the text blocks, and the error object where DESIGN §3 puts one (not
    before 2025-06-18, nor for a tool that declares its data's schema)."""
    def check(revision: str, result: dict[str, Any]) -> list[str]:
        problems = [] if result.get("isError") is True else ["isError is not true"]
        if message not in texts(result):
            problems.append(f"the message {message!r} is not in the text blocks: {texts(result)[:300]}")
        want = None if declared or revision < "2025-06-18" else {
            "error": {"code": code, "message": message, **({"details": details} if details else {})}}
        if result.get("structuredContent") != want:
            got = json.dumps(result.get("structuredContent"))
            problems.append(f"structuredContent {got}, expected {json.dumps(want)}")
        return problems
    return check


def both(*checks: Check) -> Check:
    return lambda revision, result: [p for c in checks for p in c(revision, result)]


def first_text(raw: str) -> Check:
    """Phase compat (DESIGN §3): the upstream's envelope string is the first text block, as sent."""
    def check(revision: str, result: dict[str, Any]) -> list[str]:
        first = next((b.get("text") for b in result.get("content", []) if b.get("type") == "text"), None)
        return [] if first == raw else [f"first text block {first!r:.200}, expected the upstream's {raw!r:.200}"]
    return check


def has_pixel(revision: str, result: dict[str, Any]) -> list[str]:
    pixel = base64.b64encode(legacy_server.PIXEL).decode()
    ok = any(b.get("type") == "image" and b.get("data") == pixel and b.get("mimeType") == "image/png"
             for b in result.get("content", []))
    return [] if ok else ["no image/png block carrying the upstream's pixel"]


def has_links(revision: str, result: dict[str, Any]) -> list[str]:
    """server-everything's links carry a description and a MIME type; a link part has both
    (DESIGN §2), so a revision with resource_link blocks gets them."""
    links = [b for b in result.get("content", []) if b.get("type") == "resource_link"]
    if revision < "2025-06-18":
        return [] if "demo://resource/" in texts(result) else ["the links are not in the text blocks"]
    lost = [f"resource_link {b.get('uri')} lost the upstream's {key}" for b in links
            for key in ("description", "mimeType") if key not in b]
    return lost if links else ["no resource_link block"]


def mentions(*words: str) -> Check:
    def check(revision: str, result: dict[str, Any]) -> list[str]:
        seen = texts(result) + json.dumps(result.get("structuredContent"))
        return [f"{w!r} is in neither the text blocks nor structuredContent" for w in words if w not in seen]
    return check


P = legacy_server.product
DRY_RUN = legacy_server.success({**P(7), "price": 14.0}, dryRun=True, preview={"before": P(7)["price"], "after": 14.0})
EXPORT = [P(i) for i in range(1, legacy_server.EXPORT_PRODUCTS + 1)]
NODE_1 = {"nid": 1, "title": "About us", "type": "page"}
ORDERS = [{"id": 1001, "customer": "c-1", "total": 59.9, "status": "open"},
          {"id": 1002, "customer": "c-7", "total": 12.5, "status": "shipped"}]
ADA = {"name": "Ada", "entityType": "person", "observations": ["writes programs"]}
ENGINE = {"name": "Engine", "entityType": "machine", "observations": ["analytical"]}
RELATION = {"from": "Ada", "to": "Engine", "relationType": "programs"}
NEEDS_CLIENT = "needs sampling, elicitation, roots or tasks, which the test client does not declare"

CASES: dict[str, list[Case]] = {
    "legacy": [
        Case("product_get", {"id": 7}, check=both(is_data(P(7)), first_text(legacy_server.success(P(7))))),
        Case("product_get", {"id": 999}, "error",
             is_failure("No product with id 999.", "not_found", {"productId": 999})),
        Case("product_search", {"query": "Product 1", "limit": 3}, check=is_data([P(1), P(10), P(11)])),
        Case("customer_list", {}, "error",
             is_failure("Missing privilege: customer:read", "missing_privilege", {"missing": ["customer:read"]})),
        Case("product_update_price", {"id": 7, "price": 14.0, "dryRun": True},
             check=both(is_data({**P(7), "price": 14.0}), first_text(DRY_RUN))),
        Case("product_export", {}, why="offloaded: upstreams.py reads the link back"),
        Case("product_image", {"id": 3}, check=both(has_pixel, is_data(
            {"id": 3, "mediaId": "media-3", "mimeType": "image/png", "width": 1, "height": 1}))),
    ],
    "drupal": [
        Case("node_load", {"nid": 1}, check=is_data({"success": True, "message": "Loaded node 1.", "data": NODE_1})),
        Case("node_load", {"nid": 4}, "error", is_failure("Access denied to node 4.", "tool_error", declared=True)),
        Case("node_search", {"keys": "s"}, check=mentions("Spring sale", "Shipping and returns")),
        Case("node_search", {"keys": "zzz"}, why="an empty result's `data: []` is the `{}` the envelope promises",
             check=is_data({"success": True, "message": 'No content matches "zzz".', "data": {}})),
        Case("cache_clear", {}, why="declared by `outputs` in toolwire.toml; its `data: []` is `{}`",
             check=is_data({"success": True, "message": "All caches cleared.", "data": {}})),
    ],
    "array": [
        Case("recent_orders", {"limit": 2}, check=is_data(ORDERS)),
        Case("open_carts", {}, why="an empty list stays a list (no schema wants an object)", check=is_data([])),
    ],
    "everything": [
        Case("echo", {"message": "hello upstream"}, check=mentions("Echo: hello upstream")),
        Case("get-annotated-message", {"messageType": "success", "includeImage": True}),
        Case("get-env", {}),
        Case("get-resource-links", {"count": 2}, check=has_links),
        Case("get-resource-reference", {"resourceType": "Text", "resourceId": 1}),
        Case("get-structured-content", {"location": "Chicago"}),
        Case("get-sum", {"a": 2, "b": 3}, check=mentions("5")),
        Case("get-tiny-image", {}),
        Case("gzip-file-as-resource", {"name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8=",
                                       "outputType": "resource"}),
        Case("toggle-simulated-logging", {}),
        Case("toggle-subscriber-updates", {}),
        Case("trigger-long-running-operation", {"duration": 0.3, "steps": 3}),
        Case("simulate-research-query", {"topic": "tides"}, "any", why=NEEDS_CLIENT),
        # Listed only to a client that declares the capability they use (toolwire's upstream
        # client declares elicitation and sampling, not roots); called by this client, which can
        # be asked nothing, so the upstream is declined: a well-formed result is all that counts
        # here (upstream_asks.py checks the relay).
        Case("get-roots-list", {}, "any", why=NEEDS_CLIENT),
        Case("trigger-elicitation-request", {}, "any", why=NEEDS_CLIENT),
        Case("trigger-url-elicitation", {"url": "https://example.com/consent"}, "any", why=NEEDS_CLIENT),
        Case("trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20}, "any", why=NEEDS_CLIENT),
        Case("trigger-sampling-request-async", {"prompt": "Say hi", "maxTokens": 20}, "any", why=NEEDS_CLIENT),
        Case("trigger-elicitation-request-async", {}, "any", why=NEEDS_CLIENT),
    ],
    "memory": [  # in this order: the graph is built, read and taken apart again
        Case("create_entities", {"entities": [ADA, ENGINE]}),
        Case("create_relations", {"relations": [RELATION]}),
        Case("add_observations", {"observations": [{"entityName": "Ada", "contents": ["born 1815"]}]}),
        Case("read_graph", {}, check=mentions("Ada", "Engine", "born 1815")),
        Case("search_nodes", {"query": "Ada"}, check=mentions("Ada")),
        Case("open_nodes", {"names": ["Engine"]}, check=mentions("analytical")),
        Case("delete_observations", {"deletions": [{"entityName": "Ada", "observations": ["born 1815"]}]}),
        Case("delete_relations", {"relations": [RELATION]}),
        Case("delete_entities", {"entityNames": ["Ada", "Engine"]}),
    ],
    "time": [
        Case("get_current_time", {"timezone": "Asia/Tokyo"}, check=mentions("Asia/Tokyo")),
        Case("get_current_time", {"timezone": "Mars/Olympus_Mons"}, "error", why="an unknown time zone"),
        Case("convert_time", {"source_timezone": "Europe/Berlin", "time": "14:30",
                              "target_timezone": "America/New_York"}, check=mentions("America/New_York")),
    ],
}
