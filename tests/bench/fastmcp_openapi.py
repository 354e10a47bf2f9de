"""FastMCP's OpenAPI bridge for scripts/bench-gateway: `FastMCP.from_openapi` (PyPI `fastmcp`,
pinned in tests/clients/requirements.txt) over the document openapi_api.py wrote, calling the
same REST API toolwire calls, served over Streamable HTTP as FastMCP's documentation shows.

Usage: python fastmcp_openapi.py PORT SPEC.json
"""

import json
import sys

import httpx2
from fastmcp import FastMCP


def main():
    port, spec_path = int(sys.argv[1]), sys.argv[2]
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    client = httpx2.AsyncClient(base_url=spec["servers"][0]["url"])
    server = FastMCP.from_openapi(openapi_spec=spec, client=client, name="products")
    server.run(transport="http", host="127.0.0.1", port=port, path="/mcp", show_banner=False,
               log_level="warning")


if __name__ == "__main__":
    main()
