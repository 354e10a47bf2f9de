"""The misbehaving app behind the soak's `soak_app` tool: a small loopback HTTP server.

Each POST carries the gateway's app-tool request (`{"tool", "arguments", "context"}`); the
`mode` argument says how to answer, so the soak knows what every call must produce:

- `ok`: a `toolwire.result.v1` document echoing `n`;
- `slow`: the same document, after sleeping past the tool's `timeout_ms`;
- `error500`: HTTP 500 with a plain-text body;
- `garbage`: HTTP 200, `application/json`, a body that is not JSON.

It is also a small REST API that the soak's `[[openapi]]` entry bridges: `GET /openapi.json` is
its OpenAPI 3.1 document, one operation `echo` (`GET /echo?mode=…&n=…`) answering `{"echo": n}`
(`ok`), the same after sleeping past the entry's `timeout_ms` (`slow`), or HTTP 500 with
`{"message": …}` (`error500`).

Usage: python app.py PORT SLOW_SECONDS
"""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    slow_seconds = 2.0

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        return

    def answer(self, status: int, content_type: str, body: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            # The gateway gave up on a slow answer and closed the connection: expected.
            pass

    def do_POST(self) -> None:  # noqa: N802 - the base's name
        length = int(self.headers.get("Content-Length", "0"))
        try:
            request = json.loads(self.rfile.read(length))
            arguments = request.get("arguments", {})
            mode = arguments.get("mode", "ok")
            n = arguments.get("n", 0)
        except (ValueError, AttributeError):
            self.answer(400, "text/plain", b"bad request")
            return
        ok = json.dumps(
            {"format": "toolwire.result.v1", "data": {"echo": n}, "summary": f"Echoed {n}."}
        ).encode()
        if mode == "slow":
            time.sleep(self.slow_seconds)
            self.answer(200, "application/json", ok)
        elif mode == "error500":
            self.answer(500, "text/plain", b"internal trouble in the app")
        elif mode == "garbage":
            self.answer(200, "application/json", b"{\"format\": \"toolwire.result.v1\", \"data\": [1, 2,,,\x00")
        else:
            self.answer(200, "application/json", ok)


    def do_GET(self) -> None:  # noqa: N802 - the base's name
        path, _, query = self.path.partition("?")
        if path == "/openapi.json":
            self.answer(200, "application/json", json.dumps(OPENAPI).encode())
            return
        if path != "/echo":
            self.answer(404, "application/json", b'{"message": "no such path"}')
            return
        params = dict(pair.partition("=")[::2] for pair in query.split("&") if pair)
        mode = params.get("mode", "ok")
        body = json.dumps({"echo": int(params.get("n", "0") or 0)}).encode()
        if mode == "slow":
            time.sleep(self.slow_seconds)
            self.answer(200, "application/json", body)
        elif mode == "error500":
            self.answer(500, "application/json", b'{"message": "internal trouble in the API"}')
        else:
            self.answer(200, "application/json", body)


# The REST side's OpenAPI document: one GET operation with two query parameters and a typed answer.
OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "soak API", "version": "1"},
    "paths": {"/echo": {"get": {
        "operationId": "echo",
        "summary": "Echo a number; the mode parameter says how the API misbehaves.",
        "parameters": [
            {"name": "mode", "in": "query", "schema": {"type": "string", "enum": ["ok", "slow", "error500"]}},
            {"name": "n", "in": "query", "schema": {"type": "integer"}},
        ],
        "responses": {"200": {"description": "the number", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"echo": {"type": "integer"}}, "required": ["echo"],
        }}}}},
    }}},
}


def main() -> None:
    port = int(sys.argv[1])
    Handler.slow_seconds = float(sys.argv[2])
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
