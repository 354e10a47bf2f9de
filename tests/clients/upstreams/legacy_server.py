"""A stdio MCP server in the style of a Shopware plugin before the ADR (phase 1), for upstreams.py.

Written with the official Python SDK (``MCPServer``). Every tool builds its answer by hand as the
legacy envelope and returns it as ONE text block, the way ``McpToolResponse::success()`` /
``::error()`` do: ``{"success": true, "data": ...}`` or ``{"success": false, "error": ...}``. No
tool publishes an ``outputSchema`` or sends ``structuredContent``, and every result says
``isError: false`` (the SDK's default): telling a failure from a success is left to whoever reads
the string.

The cases: a success with an object (``product_get``), with a list (``product_search``), failures
with a code and details (``product_get`` of an unknown id) and with the privilege message
(``customer_list``), a dry run with a preview (``product_update_price``), an export of about
600 KB (``product_export``) and an image next to the envelope (``product_image``).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcp.server.mcpserver import Image, MCPServer

# A 1×1 PNG (one opaque red pixel).
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)
EXPORT_PRODUCTS = 3000  # × ~200 bytes: about 600 KB of data

server = MCPServer("shop-legacy")


def product(pid: int) -> dict[str, Any]:
    return {
        "id": pid,
        "productNumber": f"SW{10000 + pid}",
        "name": f"Product {pid}",
        "price": round(9.5 + pid * 0.25, 2),
        "stock": pid % 17,
        "active": pid % 5 != 0,
        "description": f"Description of product {pid}: sturdy, washable, shipped in recycled boxes.",
    }


def success(data: Any, **extra: Any) -> str:
    return json.dumps({"success": True, "data": data, **extra})


def failure(error: Any, **extra: Any) -> str:
    return json.dumps({"success": False, "error": error, **extra})


@server.tool(structured_output=False)
def product_get(id: int) -> str:
    """Loads one product by its id (1 to 50)."""
    if not 1 <= id <= 50:
        # An error object: `code` and `message`, every other key is a detail.
        return failure({"code": "not_found", "message": f"No product with id {id}.", "productId": id})
    return success(product(id))


@server.tool(structured_output=False)
def product_search(query: str, limit: int = 3) -> str:
    """Searches products by name; answers a list."""
    found = [product(i) for i in range(1, 51) if query.lower() in product(i)["name"].lower()]
    return success(found[:limit], total=len(found))


@server.tool(structured_output=False)
def customer_list() -> str:
    """Lists customers (the caller's integration lacks the privilege)."""
    return failure("Missing privilege: customer:read")


@server.tool(structured_output=False)
def product_update_price(id: int, price: float, dryRun: bool = True) -> str:  # noqa: N803 (PHP names)
    """Changes a product's price; with dryRun (the default) only previews the change."""
    before = product(id)["price"]
    changed = {**product(id), "price": price}
    if dryRun:
        return success(changed, dryRun=True, preview={"before": before, "after": price})
    return success(changed)


@server.tool(structured_output=False)
def product_export() -> str:
    """Exports the whole catalog (about 600 KB)."""
    return success([product(i) for i in range(1, EXPORT_PRODUCTS + 1)])


@server.tool(structured_output=False)
def product_image(id: int) -> list[Any]:
    """The product's cover image, next to its media record."""
    record = success({"id": id, "mediaId": f"media-{id}", "mimeType": "image/png", "width": 1, "height": 1})
    return [record, Image(data=PIXEL, format="png")]


if __name__ == "__main__":
    server.run()
