"""A small FastAPI app that toolwire bridges through its OpenAPI documents (tests/clients/openapi.py).

FastAPI serves the app's OpenAPI 3.1 document at ``/openapi.json``; ``to_30.py`` turns it into a
3.0.3 rendition. Every route has an explicit ``operation_id`` so the tool names are stable. What
the routes cover (DESIGN §16):

- a recursive model (``Node.children: list[Node]``) with a nullable field (``note``), a field left
  out when it was never set (``weight``, ``response_model_exclude_unset``) and a ``const``
  (``kind``); a path parameter and FastAPI's ``{"detail": …}`` 404 (``getNode``);
- query parameters with defaults, a JSON array and a ``Link: <…>; rel="next"`` header
  (``listNodes``); a 422 the handler raises itself (``search``); 403 (``forbidden``); 500 with
  ``{"message": …}`` (``explode``); 429 with ``Retry-After: 7`` and an ``application/problem+json``
  body (``rateLimited``); a ~600 KB JSON object (``getReport``); text/plain (``getNodeText``);
  image/png (``getNodeIcon``); a required header parameter (``getTenant``, ``X-Tenant``);
- writes: ``POST /nodes`` with a JSON body (``createNode``, 201) and ``DELETE /nodes/{node_id}``
  (``deleteNode``, 204).

``GET /_count`` (not in the document) answers how many requests each path received, so that a
test can prove a request never reached the app.

Usage: python app.py PORT
"""

from __future__ import annotations

import json
import struct
import sys
import zlib
from collections import Counter
from typing import Literal

import uvicorn
from fastapi import FastAPI, Header, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, Field


class Node(BaseModel):
    """A node of the tree; its children are nodes."""

    id: int
    name: str = Field(examples=["root"])
    kind: Literal["node"] = "node"
    note: str | None = None
    weight: float = Field(1.0, gt=0)
    tags: list[str] = []
    children: list[Node] = []


class NodeSummary(BaseModel):
    id: int
    name: str
    tags: list[str]


class NewNode(BaseModel):
    name: str = Field(min_length=1, examples=["leaf"])
    note: str | None = None
    parent_id: int | None = None
    tags: list[str] = []


class Tenant(BaseModel):
    tenant: str
    gateway: str | None  # the X-Gateway header toolwire's config adds, if any


class ReportRow(BaseModel):
    id: int
    label: str
    value: float
    tags: list[str]


class Report(BaseModel):
    title: str
    rows: list[ReportRow]


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A valid PNG of one colour."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


ICON = png(2, 2, (200, 40, 40))
REPORT_ROWS = 4500  # ~610 KB of JSON
PROBLEM = {"type": "https://example.com/problems/rate-limited", "title": "Too Many Requests", "status": 429,
           "detail": "Slow down: at most 3 calls a minute."}

# The tree: 1 (root) → 2, 3; 2 → 4, 5, 6; 3 → 7 → 8; and 9…12 on their own. Node 1's note is
# set to null (sent as null), node 2 has no weight set (left out of the answer).
NODES: dict[int, Node] = {}
PARENT: dict[int, int | None] = {}


def add(node_id: int, name: str, parent: int | None, **fields: object) -> None:
    NODES[node_id] = Node(id=node_id, name=name, **fields)  # type: ignore[arg-type]
    PARENT[node_id] = parent


add(1, "root", None, note=None, weight=2.5, tags=["top"])
add(2, "branch a", 1, note="the first branch", tags=["branch"])
add(3, "branch b", 1, weight=0.5, tags=["branch"])
for i, name in [(4, "leaf a1"), (5, "leaf a2"), (6, "leaf a3")]:
    add(i, name, 2, tags=["leaf"])
add(7, "twig b1", 3, note="ünïcødé ✓", tags=[])
add(8, "leaf b1a", 7, tags=["leaf", "deep"])
for i in range(9, 13):
    add(i, f"orphan {i}", None, tags=["orphan"])


def tree(node_id: int) -> Node:
    """The node with its children, recursively (only the fields that were set are sent)."""
    node = NODES[node_id]
    kids = [tree(k) for k, p in PARENT.items() if p == node_id]
    copy = node.model_copy()
    if kids:
        copy.children = kids
        copy.model_fields_set.add("children")
    return copy


app = FastAPI(title="toolwire test nodes", version="1.0.0",
              description="Nodes, a report and every kind of answer toolwire bridges.")
COUNTS: Counter[str] = Counter()


@app.middleware("http")
async def count(request: Request, call_next):  # type: ignore[no-untyped-def]
    COUNTS[request.url.path] += 1
    return await call_next(request)


@app.get("/_count", include_in_schema=False)
def counts() -> dict[str, int]:
    return dict(COUNTS)


@app.get("/nodes/{node_id}", operation_id="getNode", response_model=Node, response_model_exclude_unset=True)
def get_node(node_id: int) -> Node:
    """One node and all of its descendants."""
    if node_id not in NODES:
        raise HTTPException(404, detail=f"Node {node_id} does not exist.")
    return tree(node_id)


@app.get("/nodes", operation_id="listNodes", response_model=list[NodeSummary])
def list_nodes(request: Request, response: Response,
               limit: int = Query(5, gt=0, le=50, description="How many nodes at most"),
               offset: int = Query(0, ge=0, description="How many nodes to skip"),
               tag: str | None = Query(None, description="Only nodes with this tag", examples=["leaf"])
               ) -> list[NodeSummary]:
    """Every node, flat, a page at a time."""
    matching = [n for n in NODES.values() if tag is None or tag in n.tags]
    page = matching[offset:offset + limit]
    if offset + limit < len(matching):
        url = request.url.include_query_params(limit=limit, offset=offset + limit)
        response.headers["Link"] = f'<{url}>; rel="next"'
    return [NodeSummary(id=n.id, name=n.name, tags=n.tags) for n in page]


@app.post("/nodes", operation_id="createNode", response_model=Node, status_code=201,
          response_model_exclude_unset=True)
def create_node(new: NewNode) -> Node:
    """Adds a node."""
    if new.parent_id is not None and new.parent_id not in NODES:
        raise HTTPException(404, detail=f"Parent node {new.parent_id} does not exist.")
    node_id = max(NODES) + 1
    add(node_id, new.name, new.parent_id, note=new.note, tags=new.tags)
    return tree(node_id)


@app.delete("/nodes/{node_id}", operation_id="deleteNode", status_code=204)
def delete_node(node_id: int) -> Response:
    """Removes a node that has no children."""
    if node_id not in NODES:
        raise HTTPException(404, detail=f"Node {node_id} does not exist.")
    if any(p == node_id for p in PARENT.values()):
        raise HTTPException(409, detail=f"Node {node_id} has children.")
    del NODES[node_id], PARENT[node_id]
    return Response(status_code=204)


@app.get("/nodes/{node_id}/text", operation_id="getNodeText", response_class=PlainTextResponse)
def node_text(node_id: int) -> str:
    """The node as one line of text."""
    if node_id not in NODES:
        raise HTTPException(404, detail=f"Node {node_id} does not exist.")
    node = NODES[node_id]
    return f"Node {node.id}: {node.name}"


@app.get("/nodes/{node_id}/icon", operation_id="getNodeIcon", response_class=Response,
         responses={200: {"content": {"image/png": {}}, "description": "A PNG icon"}})
def node_icon(node_id: int) -> Response:
    """The node's icon, a small PNG."""
    if node_id not in NODES:
        raise HTTPException(404, detail=f"Node {node_id} does not exist.")
    return Response(ICON, media_type="image/png")


@app.get("/search", operation_id="search", response_model=list[NodeSummary])
def search(q: str = Query(description="At least 3 characters of a node's name")) -> list[NodeSummary]:
    """Nodes whose name contains q."""
    if len(q) < 3:
        raise HTTPException(422, detail="The search text q must be at least 3 characters long.")
    return [NodeSummary(id=n.id, name=n.name, tags=n.tags) for n in NODES.values() if q.lower() in n.name.lower()]


@app.get("/tenant", operation_id="getTenant", response_model=Tenant)
def tenant(request: Request, x_tenant: str = Header(alias="X-Tenant", description="The tenant")) -> Tenant:
    """Echoes the tenant header (and the gateway's own header, when it sends one)."""
    return Tenant(tenant=x_tenant, gateway=request.headers.get("x-gateway"))


@app.get("/admin/secret", operation_id="forbidden")
def forbidden() -> dict[str, str]:
    """Always refused: only admins may read the secret."""
    raise HTTPException(403, detail="Only administrators may read the secret.")


@app.get("/explode", operation_id="explode")
def explode():  # type: ignore[no-untyped-def]  (no return type: no response schema)
    """Always fails with a 500."""
    return JSONResponse({"message": "The reactor core melted."}, status_code=500)


@app.get("/limited", operation_id="rateLimited", response_model=NodeSummary)
def limited() -> Response:
    """Always over its rate limit."""
    return Response(json.dumps(PROBLEM), status_code=429, media_type="application/problem+json",
                    headers={"Retry-After": "7"})


def report() -> Report:
    return Report(title="Every node, many times", rows=[
        ReportRow(id=i, label=f"row {i}: {NODES[1 + i % 12].name if 1 + i % 12 in NODES else 'gone'}",
                  value=i * 1.25, tags=["report", f"bucket-{i % 17}", "padding-" + "x" * 40])
        for i in range(REPORT_ROWS)])


REPORT = report()  # fixed at start: the test compares it with what it reads back


@app.get("/report", operation_id="getReport", response_model=Report)
def get_report() -> Report:
    """A large report (~600 KB of JSON)."""
    return REPORT


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
