"""The benchmark's Python server: the official Python SDK (PyPI ``mcp``, pinned in
tests/clients/requirements.txt) serving toolwire's demo catalog tools over Streamable HTTP, the
way its documentation shows (``MCPServer``, typed tools, uvicorn): the same products (generated
by the same rule as toolwire's demo catalog), the same fields, an outputSchema from the return
types.

Usage: python py_server.py PORT
"""

from __future__ import annotations

import sys

import uvicorn
from pydantic import BaseModel

from mcp.server.mcpserver import MCPServer

CATEGORIES = ["chairs", "tables", "lamps", "desks", "shelves"]
NOUNS = ["chair", "table", "lamp", "desk", "shelf"]
ADJECTIVES = ["Oak", "Walnut", "Steel", "Linen", "Birch", "Brass", "Velvet", "Maple"]


class Product(BaseModel):
    """One product."""

    id: int
    name: str
    category: str
    price: float
    stock: int
    description: str


def product(i: int) -> Product:
    adjective = ADJECTIVES[(i // 5) % 8]
    noun = NOUNS[i % 5]
    return Product(
        id=i,
        name=f"{adjective} {noun} {i}",
        category=CATEGORIES[i % 5],
        price=(500 + (i * 7919) % 99_500) / 100.0,
        stock=(i * 31) % 120,
        description=f"From the {adjective} line: a {noun} made to order and shipped within {2 + i % 12} days.",
    )


CATALOG = [product(i) for i in range(1, 2001)]

server = MCPServer("bench-python", log_level="WARNING")


@server.tool()
def catalog_get(id: int) -> Product:
    """Get one product by its id."""
    if not 1 <= id <= len(CATALOG):
        raise ValueError(f"No product {id}")
    return CATALOG[id - 1]


@server.tool()
def catalog_search(
    query: str | None = None, category: str | None = None, limit: int = 20, page: int = 1
) -> list[Product]:
    """Search the product catalog by words and category; results come a page at a time."""
    words = (query or "").lower().split()
    matches = [
        p
        for p in CATALOG
        if (category is None or p.category == category)
        and all(w in f"{p.name} {p.description}".lower() for w in words)
    ]
    start = (page - 1) * limit
    return matches[start : start + limit]


@server.tool()
def catalog_export() -> list[Product]:
    """Export the whole catalog."""
    return CATALOG


if __name__ == "__main__":
    app = server.streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
