#!/usr/bin/env python3
"""A hostile MCP server on stdio for the gateway's tests (standard library only).

It speaks newline-delimited JSON-RPC: answers `initialize` (the revision asked for, when it
knows it), refuses `server/discover` with -32601 so that the client falls back to the handshake,
answers `ping` and `tools/list`, and misbehaves as the first argument says:

  huge           answers a call with ~100 MB of text
  silent         never answers a call
  garbage        answers a call with lines that are not JSON and messages that are not JSON-RPC
  flood          after the handshake, sends thousands of notifications a second (progress,
                 log messages, tools/list_changed); and 5 000 progress notifications before
                 the answer to a call that asked for progress
  requests       after the handshake, sends a storm of requests (sampling, elicitation, roots,
                 ping)
  many-tools     declares 20 000 tools and 20 000 resources over pages of 500
  fat-tools      declares 64 tools of a 1 MiB description each, four to a page
  control-chars  declares tool names, titles and descriptions with control characters

The second argument, when given, is a file where it writes how many times it was asked
`tools/list` (rewritten on each request).

With `--http PORT_FILE` as the third and fourth arguments it serves Streamable HTTP instead
(POST /mcp, one JSON answer per request, no session, no event stream) on a free loopback port
that it writes to PORT_FILE; there `huge` answers a call with a ~100 MB body, `silent` never
answers it, and `garbage` answers it with a body that is not JSON; `expire` gives each
`initialize` a session (`Mcp-Session-Id`: s1, s2, …), answers 404 to a request of a session it
does not know, forgets s1 at the first call made in it, and answers each call with the
JSON-RPC id and session it came with.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "silent"
STATE = sys.argv[2] if len(sys.argv) > 2 else None
KNOWN = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
OUT = sys.stdout.buffer
WRITE = threading.Lock()
LISTED = 0
HTTP = len(sys.argv) > 4 and sys.argv[3] == "--http"
# Over HTTP, what one request's dispatch sends (its answer) is gathered here, per thread.
GATHERED = threading.local()
# `expire`: the sessions given and not forgotten, and how many were given.
SESSIONS = set()
GIVEN = [0]


def send(message):
    if HTTP:
        GATHERED.messages.append(message)
        return
    line = json.dumps(message).encode() + b"\n"
    with WRITE:
        OUT.write(line)
        OUT.flush()


def send_raw(data):
    with WRITE:
        OUT.write(data)
        OUT.flush()


def answer(ident, result):
    send({"jsonrpc": "2.0", "id": ident, "result": result})


def tool(name, description="A tool of the hostile upstream.", title=None):
    definition = {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {}},
    }
    if title is not None:
        definition["title"] = title
    return definition


PAGE = 500
PROGRESS_FLOOD = 5000
MANY = 20000
CONTROL_TOOLS = [
    tool("bad\x1b[31mred"),
    tool("new\nline"),
    tool("bell\x07"),
    tool("nul\x00byte"),
    tool(
        "escaped_description",
        description="first line\nsecond\tline \x1b[2J\x1b[31mred\x1b[0m \x07\x00\x7f\u009b end",
        title="Title \x1b[1mbold\x1b[0m\r\n",
    ),
]


def tools_page(cursor):
    if MODE == "many-tools":
        start = int(cursor or 0)
        end = min(start + PAGE, MANY)
        page = {"tools": [tool(f"t{i:05}") for i in range(start, end)]}
        if end < MANY:
            page["nextCursor"] = str(end)
        return page
    if MODE == "fat-tools":
        start = int(cursor or 0)
        end = min(start + 4, 64)
        fat = "d" * (1 << 20)
        page = {"tools": [tool(f"fat{i:02}", description=fat) for i in range(start, end)]}
        if end < 64:
            page["nextCursor"] = str(end)
        return page
    if MODE == "control-chars":
        return {"tools": CONTROL_TOOLS + [tool("hostile")]}
    return {"tools": [tool("hostile")]}


def huge(ident):
    head = b'{"jsonrpc":"2.0","id":' + json.dumps(ident).encode()
    head += b',"result":{"content":[{"type":"text","text":"'
    chunk = b"x" * (1 << 20)
    with WRITE:
        OUT.write(head)
        for _ in range(100):
            OUT.write(chunk)
        OUT.write(b'"}]}}\n')
        OUT.flush()


def garbage(ident):
    send_raw(b"this is not json\n")
    send_raw(b"\x00\x01\x02\xff\xfe binary \x1b[31m\n")
    send_raw(b'{"jsonrpc": "2.0", "id": \n')
    send_raw(b"[1, 2, 3]\n")
    send({"jsonrpc": "1.0", "id": ident, "result": 5})
    send({"jsonrpc": "2.0", "id": ident})
    send({"jsonrpc": "2.0", "id": ident, "result": "not an object"})


def call(ident, params):
    token = (params.get("_meta") or {}).get("progressToken")
    if MODE == "flood" and token is not None:
        for n in range(1, PROGRESS_FLOOD + 1):
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": n, "total": PROGRESS_FLOOD}})
    if MODE == "expire":
        text = json.dumps({"id": ident, "session": GATHERED.session})
        answer(ident, {"content": [{"type": "text", "text": text}]})
    elif params.get("name") != "hostile" or MODE in ("flood", "requests", "many-tools",
                                                      "fat-tools", "control-chars"):
        answer(ident, {"content": [{"type": "text", "text": "ok"}]})
    elif MODE == "huge":
        huge(ident)
    elif MODE == "garbage":
        garbage(ident)
    # silent: nothing, ever


def flood():
    n = 0
    while True:
        for _ in range(100):
            n += 1
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": f"nobody-{n}", "progress": n}})
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "error", "data": f"flood \x1b[31m{n}\n"}})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        time.sleep(0.05)


def requests():
    n = 0
    kinds = [
        ("sampling/createMessage", {"messages": [{"role": "user", "content":
                                    {"type": "text", "text": "hi"}}], "maxTokens": 10}),
        ("elicitation/create", {"message": "your password?", "requestedSchema":
                                {"type": "object", "properties": {}}}),
        ("roots/list", {}),
        ("ping", {}),
    ]
    while True:
        for _ in range(50):
            for method, params in kinds:
                n += 1
                send({"jsonrpc": "2.0", "id": f"s-{n}", "method": method, "params": params})
        time.sleep(0.05)


def main():
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "method" not in message:
            continue  # answers to what this server asked, and errors about what it sent
        dispatch(message)


class Handler(BaseHTTPRequestHandler):
    """Streamable HTTP: a POST carries one message; a request is answered in the body."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        extra = {}
        if MODE == "expire" and isinstance(message, dict):
            session = self.headers.get("Mcp-Session-Id")
            with WRITE:
                if message.get("method") == "initialize":
                    GIVEN[0] += 1
                    session = f"s{GIVEN[0]}"
                    SESSIONS.add(session)
                    extra["Mcp-Session-Id"] = session
                elif session is not None and (session not in SESSIONS or (
                        message.get("method") == "tools/call" and session == "s1")):
                    SESSIONS.discard(session)
                    session = None
            if session is None and message.get("method") != "initialize":
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            GATHERED.session = session
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            if isinstance(message, dict) and "method" in message:
                dispatch(message)
            self.send_response(202)
            self.end_headers()
            return
        if message["method"] == "tools/call" and MODE != "expire" and (
                message.get("params") or {}).get("name") == "hostile":
            self.misbehave(message["id"])
            return
        GATHERED.messages = []
        dispatch(message)
        answers = [m for m in GATHERED.messages if m.get("id") == message["id"]]
        self.reply(json.dumps(answers[-1] if answers else {}).encode(), extra)

    def misbehave(self, ident):
        if MODE == "huge":
            head = b'{"jsonrpc":"2.0","id":' + json.dumps(ident).encode()
            head += b',"result":{"content":[{"type":"text","text":"'
            tail = b'"}]}}'
            chunk = b"x" * (1 << 20)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(head) + 100 * len(chunk) + len(tail)))
            self.end_headers()
            self.wfile.write(head)
            for _ in range(100):
                self.wfile.write(chunk)
            self.wfile.write(tail)
        elif MODE == "garbage":
            self.reply(b"this is not json \x1b[31m")
        else:
            time.sleep(3600)

    def reply(self, data, extra=None):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send_response(405)
        self.send_header("Allow", "POST")
        self.end_headers()

    def do_DELETE(self):
        self.send_response(200)
        self.end_headers()


def serve_http(port_file):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(port_file + ".tmp", "w") as out:
        out.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


def dispatch(message):
    global LISTED
    method, ident = message["method"], message.get("id")
    params = message.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        capabilities = {"tools": {"listChanged": True}}
        if MODE == "many-tools":
            capabilities["resources"] = {}
        answer(ident, {
            "protocolVersion": asked if asked in KNOWN else "2025-11-25",
            "capabilities": capabilities,
            "serverInfo": {"name": "hostile", "version": "1"},
        })
    elif method == "notifications/initialized":
        if MODE == "flood":
            threading.Thread(target=flood, daemon=True).start()
        elif MODE == "requests":
            threading.Thread(target=requests, daemon=True).start()
    elif ident is None:
        return
    elif method == "ping":
        answer(ident, {})
    elif method == "tools/list":
        LISTED += 1
        if STATE:
            with open(STATE, "w") as state:
                state.write(str(LISTED))
        answer(ident, tools_page(params.get("cursor")))
    elif method == "resources/list" and MODE == "many-tools":
        start = int(params.get("cursor") or 0)
        end = min(start + PAGE, MANY)
        page = {"resources": [{"uri": f"hostile://r/{i}", "name": f"r{i}"}
                              for i in range(start, end)]}
        if end < MANY:
            page["nextCursor"] = str(end)
        answer(ident, page)
    elif method == "resources/templates/list" and MODE == "many-tools":
        answer(ident, {"resourceTemplates": []})
    elif method == "tools/call":
        call(ident, params)
    else:
        send({"jsonrpc": "2.0", "id": ident,
              "error": {"code": -32601, "message": f"{method} is not served here"}})


if __name__ == "__main__":
    try:
        if HTTP:
            serve_http(sys.argv[4])
        else:
            main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
