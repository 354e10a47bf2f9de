"""The local app of the memory benchmark (standard library only): POST /answer/MiB answers a v1
result document whose data is a product list of about that many MiB (built once per size, then
served from memory), so toolwire parses, stores and links a large answer on every call.

Usage: python memory_app.py PORT
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CACHE: dict[int, bytes] = {}


def answer(mib: int) -> bytes:
    if mib not in CACHE:
        products, size, i = [], 0, 0
        while size < mib * 1024 * 1024 - 200:
            i += 1
            p = {
                "id": i,
                "name": f"Product {i}",
                "price": round(5 + (i * 7919) % 99500 / 100, 2),
                "stock": (i * 31) % 120,
                "tags": ["a", "b"],
                "description": "Made to order and shipped within a few days.",
            }
            text = json.dumps(p, separators=(",", ":"))
            products.append(text)
            size += len(text) + 1
        data = "[" + ",".join(products) + "]"
        CACHE[mib] = ('{"format":"toolwire.result.v1","data":' + data + ',"summary":"A large answer."}').encode()
    return CACHE[mib]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):  # noqa: N802 - the http.server API
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        body = answer(int(self.path.rsplit("/", 1)[-1]))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
