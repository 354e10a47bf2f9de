"""Soak test of `toolwire serve`: many concurrent clients, both eras, Redis outages, a flaky app,
a flaky REST API and an upstream MCP server that is killed.

Starts on loopback ports: `redis-server` (append-only file, fsync on every write, so what was
stored survives a kill), the misbehaving app of `app.py` (also a REST API with an OpenAPI
document), and one gateway using that Redis as its store, the app as the `soak_app` tool, the
API's `echo` operation as `api_echo` (`[[openapi]]`) and a second toolwire over stdio as an
upstream whose `catalog_get` is `up_catalog_get` (`[[upstreams]]`). Then CLIENTS concurrent
clients share CALLS `tools/call` requests. Client i speaks one revision: the handshake revisions (`initialize` + session) and the
stateless 2026-07-28 one (revision in `_meta`), in turn. Each call is:

- about 1 % `catalog_export` (a large result, offloaded to the store behind a link), whose link is
  read back at once with `resources/read` and again at the end;
- about 20 % `soak_app`, a third of which are told to misbehave (too slow, HTTP 500, garbage);
  on 2026-07-28 a quarter of them declare the tasks extension, so the call becomes a task
  (`task = "optional"`) that the client polls with `tasks/get` to its end;
- about 10 % `api_echo`, a fifth of which are told to fail (too slow, HTTP 500);
- about 10 % `up_catalog_get`, through the upstream;
- the rest the small demo tools (`catalog_search`, `catalog_get`, `catalog_count`).

Meanwhile Redis is killed (SIGKILL) and restarted on the same port OUTAGES times, spread over the
run; the upstream is killed (SIGKILL) as often, between them, and the gateway starts it again on
its own; the gateway's VmRSS is sampled from /proc.

It asserts:
- every call got a result or a clear error: a success, or an `isError` result with a known code
  (`upstream_unavailable` for the app's misbehaviour; `tool_error` "could not be stored" for an
  export while Redis was down; `upstream_unavailable` for `up_catalog_get` within
  UPSTREAM_GRACE seconds of a kill of the upstream), or a JSON-RPC error other than -32603 while
  Redis was down; a
  `resources/read` overlapping an outage may fail, and only with -32603 "The result store is
  temporarily unavailable, …" with `data: {"retryable": true}`, or another JSON-RPC error;
- every issued link reads back whole (the same export as every other read) while Redis is up,
  and all of them at the end;
- nothing unexpected: no -32603, no HTTP error status, no call over the client timeout (a hang),
  no dropped connection, no failure outside an outage;
- every task reaches its end and carries what the call would have: while Redis is down a task
  request may be refused only with -32603 "The result store is temporarily unavailable, so the
  task could not be …; retry later" and `data: {"retryable": true}`, and the client polls on;
- the upstream serves again after its last kill, without restarting the gateway;
- the gateway's peak VmRSS stays under --rss-bound-mib.

Prints a summary (also as JSON with --json FILE) and exits 0 when every assertion held.
Usage: python soak.py --binary target/release/toolwire [--clients N] [--calls M] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients"))
from loopback import free_port, wait_for_port  # noqa: E402

STATELESS = "2026-07-28"
HANDSHAKE = ["2025-03-26", "2025-06-18", "2025-11-25"]
KEYS_ENV = "TOOLWIRE_SIGNING_KEYS"
TOKEN = "soak-" + secrets.token_hex(12)
# A debug gateway with 20 clients on a slow 2-core host once took over 500 ms for 2 of 2 374
# calls the app answered at once; a second leaves the slow answers (APP_SLOW_SECONDS) well past it.
# A slow answer comes 2 s after the limit: once, a stalled host held the gateway past the limit
# of five slow calls until their answers had come at 1.5 s, and a timeout polled only then
# finds the answer first (tokio's `timeout` polls the call before the timer).
APP_TIMEOUT_MS = 1000
APP_SLOW_SECONDS = 3.0
CLIENT_TIMEOUT = 30.0
# The TTL of the tasks that must expire: shorter than the slow app's APP_TIMEOUT_MS.
EXPIRING_TTL_MS = 200
# A call whose time span came this close to an outage counts as overlapping it: the gateway's
# Redis connection notices a restart only on its next command.
OUTAGE_GRACE = 2.0
QUOTA = 8 << 30
# How long after a kill of the upstream its tools may answer `upstream_unavailable`: the gateway
# starts it again after a backoff of 250 ms doubling (reset after a minute up), and a debug
# build of the upstream takes a moment to start.
UPSTREAM_GRACE = 10.0
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
STORE_DOWN_TASK = "The result store is temporarily unavailable, so the task could not be "
STORE_DOWN_READ = ("The result store is temporarily unavailable, so the stored result could "
                   "not be read; the link is still valid: retry resources/read later")


@dataclass
class Outcomes:
    """What happened, by kind; `unexpected` lists the first few details of each failing kind."""

    counts: collections.Counter[str] = field(default_factory=collections.Counter)
    unexpected: dict[str, list[str]] = field(default_factory=dict)
    links: list[tuple[str, int]] = field(default_factory=list)  # (uri, client)
    export_reference: str | None = None
    reads_whole: int = 0
    reads_during_outage: int = 0

    def bad(self, kind: str, detail: str) -> None:
        self.counts["UNEXPECTED " + kind] += 1
        self.unexpected.setdefault(kind, [])
        if len(self.unexpected[kind]) < 5:
            self.unexpected[kind].append(detail[:400])


class Redis:
    """The store's Redis, killed and restarted on one port; remembers when it was down."""

    def __init__(self, binary: str, port: int, work: Path) -> None:
        self.binary, self.port, self.work = binary, port, work
        self.proc: subprocess.Popen[bytes] | None = None
        self.down: list[list[float]] = []  # [killed at, back at (inf while down)]

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.work)],
            stdout=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.proc, "redis-server")

    def kill(self) -> None:
        assert self.proc is not None
        self.down.append([time.monotonic(), float("inf")])
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def restart(self) -> None:
        self.start()
        self.down[-1][1] = time.monotonic()

    def overlaps(self, start: float, end: float) -> bool:
        return any(start <= back + OUTAGE_GRACE and end >= killed - OUTAGE_GRACE for killed, back in self.down)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Upstream:
    """The upstream MCP server the gateway started (a toolwire on stdio, which writes its process
    id to a file): killed from here, started again by the gateway; remembers when it was killed."""

    def __init__(self, pid_file: Path) -> None:
        self.pid_file = pid_file
        self.killed: list[float] = []

    def kill(self) -> bool:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return False
        self.killed.append(time.monotonic())
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return False
        return True

    def overlaps(self, start: float, end: float) -> bool:
        return any(start <= killed + UPSTREAM_GRACE and end >= killed for killed in self.killed)


def message_of(response: httpx.Response) -> Any:
    """The JSON-RPC message of an answer: a JSON body or the last `data:` event holding one."""
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        message = None
        for line in text.splitlines():
            if line.startswith("data:"):
                try:
                    message = json.loads(line[5:])
                except ValueError:
                    continue
        return message
    return json.loads(text) if text else None


class Client:
    """One MCP client over Streamable HTTP, speaking one revision, on one connection."""

    def __init__(self, url: str, revision: str, number: int) -> None:
        self.url, self.revision, self.number = url, revision, number
        self.http = httpx.AsyncClient(
            timeout=httpx.Timeout(CLIENT_TIMEOUT),
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
        )
        self.session: str | None = None
        self.next_id = 1

    def headers(self, method: str, params: dict[str, Any]) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {TOKEN}",
        }
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        if self.revision >= "2025-06-18" and method != "initialize":
            headers["MCP-Protocol-Version"] = self.revision
        if self.revision == STATELESS:
            headers["Mcp-Method"] = method
            name = params.get("name") if method == "tools/call" else params.get("uri", params.get("taskId"))
            if isinstance(name, str):
                headers["Mcp-Name"] = name
        return headers

    async def post(self, method: str, params: dict[str, Any] | None, notify: bool = False,
                   tasks: bool = False) -> tuple[int, Any]:
        params = dict(params or {})
        if self.revision == STATELESS:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": STATELESS,
                "io.modelcontextprotocol/clientInfo": {"name": "toolwire-soak", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": TASKS if tasks else {},
            }
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params:
            body["params"] = params
        if not notify:
            body["id"] = self.next_id
            self.next_id += 1
        response = await self.http.post(self.url, content=json.dumps(body), headers=self.headers(method, params))
        if "mcp-session-id" in response.headers:
            self.session = response.headers["mcp-session-id"]
        if notify:
            return response.status_code, None
        message = message_of(response) if response.status_code == 200 else response.text[:300]
        if response.status_code == 200 and (not isinstance(message, dict) or message.get("id") != body["id"]):
            raise ValueError(f"answer without the request's id: {str(message)[:300]}")
        return response.status_code, message

    async def connect(self) -> None:
        if self.revision == STATELESS:
            return
        status, init = await self.post(
            "initialize",
            {"protocolVersion": self.revision, "capabilities": {},
             "clientInfo": {"name": "toolwire-soak", "version": "1"}},
        )
        if status != 200 or init.get("result", {}).get("protocolVersion") != self.revision:
            raise RuntimeError(f"initialize on {self.revision} failed: HTTP {status} {str(init)[:300]}")
        status, _ = await self.post("notifications/initialized", None, notify=True)
        if status != 202:
            raise RuntimeError(f"notifications/initialized: HTTP {status}")

    async def close(self) -> None:
        await self.http.aclose()


def failure_of(result: dict[str, Any]) -> dict[str, Any]:
    """The `{code, error}` of an `isError` result (its first text block, or structuredContent)."""
    for block in result.get("content", []):
        if block.get("type") == "text":
            try:
                failure = json.loads(block["text"])
            except ValueError:
                continue
            if isinstance(failure, dict) and "code" in failure:
                return failure
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        if "code" in structured:
            return structured
        if isinstance(structured.get("error"), dict):
            return structured["error"]
    return {"code": None, "error": json.dumps(result)[:300]}


def stored_links(result: dict[str, Any]) -> list[str]:
    """The links of an offloaded result: `resource_link` blocks (2025-06-18 and later), else the
    `_meta.resourceUri` of the stub in the text block (2025-03-26 has no `resource_link`)."""
    content = result.get("content", [])
    links = [c["uri"] for c in content if c.get("type") == "resource_link"]
    if links:
        return links
    for block in content:
        if block.get("type") == "text":
            try:
                stub = json.loads(block["text"])
            except ValueError:
                continue
            uri = stub.get("_meta", {}).get("resourceUri") if isinstance(stub, dict) else None
            if isinstance(uri, str):
                links.append(uri)
    return links


def pick_call(rng: random.Random, n: int, args: argparse.Namespace) -> tuple[str, dict[str, Any], str]:
    """A call: tool, arguments, and what it must produce (`ok` or an expected failure code)."""
    roll = rng.random()
    if roll < args.export_share:
        return "catalog_export", {}, "export"
    roll -= args.export_share
    if roll < args.app_share:
        mode = rng.choices(["ok", "slow", "error500", "garbage"], weights=[67, 11, 11, 11])[0]
        return "soak_app", {"mode": mode, "n": n}, "ok" if mode == "ok" else "upstream_unavailable"
    roll -= args.app_share
    if roll < args.api_share:
        mode = rng.choices(["ok", "slow", "error500"], weights=[80, 10, 10])[0]
        return "api_echo", {"mode": mode, "n": n}, "ok" if mode == "ok" else "upstream_unavailable"
    roll -= args.api_share
    if roll < args.upstream_share:
        return "up_catalog_get", {"id": rng.randrange(1, 40)}, "upstream"
    which = rng.randrange(3)
    if which == 0:
        return "catalog_search", {"query": rng.choice(["chair", "lamp", "oak", "desk"]), "limit": 5}, "ok"
    if which == 1:
        return "catalog_get", {"id": rng.randrange(1, 40)}, "ok_or_not_found"
    return "catalog_count", {}, "ok"


async def read_link(client: Client, uri: str, out: Outcomes, redis: Redis, final: bool) -> bool:
    """Reads a stored export back; True when it came back whole."""
    start = time.monotonic()
    status, answer = await client.post("resources/read", {"uri": uri})
    outage = redis.overlaps(start, time.monotonic())
    if status == 200 and "result" in answer:
        contents = answer["result"].get("contents", [])
        text = contents[0].get("text") if contents else None
        if not isinstance(text, str):
            out.bad("read without text", json.dumps(answer)[:300])
            return False
        try:
            json.loads(text)
        except ValueError:
            out.bad("read not whole (not JSON)", f"{uri}: {len(text)} bytes")
            return False
        if out.export_reference is None:
            out.export_reference = text
        if text != out.export_reference:
            out.bad("read differs from the export", f"{uri}: {len(text)} bytes vs {len(out.export_reference)}")
            return False
        out.reads_whole += 1
        out.counts["read " + ("final" if final else "at once") + ": whole"] += 1
        return True
    if outage and not final:
        error = answer.get("error", {}) if isinstance(answer, dict) else {}
        code = error.get("code", f"HTTP {status}")
        message = error.get("message", "")
        # The gateway answers a read it cannot serve because the store is down with -32603, this
        # message and `data: {"retryable": true}` (RELIABILITY.md, "Soak"); any other -32603 is
        # a defect.
        if code == -32603 and (message != STORE_DOWN_READ or error.get("data") != {"retryable": True}):
            out.bad("read -32603 during outage", json.dumps(answer)[:300])
        else:
            out.reads_during_outage += 1
            out.counts[f"read at once: error {code} {message!r} during outage"] += 1
        return False
    out.bad("read failed with Redis up", f"HTTP {status} {json.dumps(answer)[:300]}")
    return False


def store_down_for_tasks(answer: Any) -> bool:
    """Whether `answer` is the retryable refusal of a task request while the store is down."""
    error = answer.get("error", {}) if isinstance(answer, dict) else {}
    message = str(error.get("message", ""))
    return (error.get("code") == -32603 and message.startswith(STORE_DOWN_TASK)
            and error.get("data") == {"retryable": True})


async def follow_task(client: Client, created: dict[str, Any], out: Outcomes, redis: Redis,
                      cancel: bool) -> Any:
    """Polls a task to its end: the answer `tools/call` would have given (a result, or the
    task's error as a JSON-RPC error), or None once it is counted as cancelled or after a
    finding. With `cancel`, the task is cancelled first: it ends `cancelled`, or `completed`
    when it finished before the cancellation reached it."""
    task_id = created.get("taskId")
    if created.get("resultType") != "task" or not isinstance(task_id, str):
        out.bad("no task", json.dumps(created)[:300])
        return None
    if cancel:
        start = time.monotonic()
        status, answer = await client.post("tasks/cancel", {"taskId": task_id}, tasks=True)
        if status == 200 and store_down_for_tasks(answer) and redis.overlaps(start, time.monotonic()):
            out.counts["soak_app task: tasks/cancel refused while Redis is down"] += 1
        elif status != 200 or "result" not in answer:
            out.bad("tasks/cancel failed", f"HTTP {status} {json.dumps(answer)[:300]}")
            return None
    deadline = time.monotonic() + CLIENT_TIMEOUT
    while time.monotonic() < deadline:
        start = time.monotonic()
        status, answer = await client.post("tasks/get", {"taskId": task_id}, tasks=True)
        if status == 200 and "result" in answer:
            task = answer["result"]
            if task.get("status") == "completed":
                out.counts["soak_app task: completed" + (" before its cancellation" if cancel else "")] += 1
                return {"result": task.get("result", {})}
            if task.get("status") == "cancelled" and cancel:
                out.counts["soak_app task: cancelled"] += 1
                return None
            if task.get("status") in ("failed", "cancelled", "input_required"):
                out.bad("task ended otherwise", json.dumps(task)[:300])
                return None
        elif status == 200 and store_down_for_tasks(answer) and redis.overlaps(start, time.monotonic()):
            out.counts["soak_app task: tasks/get refused while Redis is down, polled on"] += 1
        else:
            out.bad("tasks/get failed", f"HTTP {status} {json.dumps(answer)[:300]}")
            return None
        await asyncio.sleep(0.05)
    out.bad("task never ended", task_id)
    return None


async def expiring_task(client: Client, arguments: dict[str, Any], out: Outcomes, redis: Redis) -> None:
    """A 2025-11-25 task asked to live 200 ms for an app call that takes longer: it must be gone
    (`Unknown task`) once its TTL has passed, never end otherwise."""
    start = time.monotonic()
    status, answer = await client.post(
        "tools/call", {"name": "soak_app", "arguments": arguments, "task": {"ttl": EXPIRING_TTL_MS}})
    if status == 200 and store_down_for_tasks(answer) and redis.overlaps(start, time.monotonic()):
        out.counts["soak_app expiring task: not created while Redis is down"] += 1
        return
    task_id = (answer.get("result", {}).get("task", {}) if isinstance(answer, dict) else {}).get("taskId")
    if status != 200 or not isinstance(task_id, str):
        out.bad("expiring task not created", f"HTTP {status} {json.dumps(answer)[:300]}")
        return
    deadline = start + CLIENT_TIMEOUT
    while time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        polled = time.monotonic()
        status, answer = await client.post("tasks/get", {"taskId": task_id})
        error = answer.get("error", {}) if isinstance(answer, dict) else {}
        if status == 200 and error.get("code") == -32602 and str(error.get("message", "")).startswith("Unknown task"):
            out.counts["soak_app expiring task: gone after its TTL"] += 1
            return
        if status == 200 and store_down_for_tasks(answer) and redis.overlaps(polled, time.monotonic()):
            continue
        if status == 200 and answer.get("result", {}).get("status") == "working":
            continue
        out.bad("expiring task outlived its TTL or ended", f"HTTP {status} {json.dumps(answer)[:300]}")
        return
    out.bad("expiring task never went", task_id)


def expected_failure(tool: str, arguments: dict[str, Any], expect: str, code: Any, message: str, outage: bool,
                     upstream_killed: bool, out: Outcomes, via: str = "") -> None:
    """Counts a failure the call may end in (or reports it): the same rules for MCP and the console."""
    if expect == "upstream_unavailable" and code == "upstream_unavailable":
        out.counts[f"{via}{tool} {arguments['mode']}: upstream_unavailable"] += 1
    elif expect == "upstream" and code == "upstream_unavailable" and upstream_killed:
        out.counts[f"{via}{tool}: upstream_unavailable (upstream killed)"] += 1
    elif expect in ("ok_or_not_found", "upstream") and code == "not_found":
        out.counts[f"{via}{tool}: not_found"] += 1
    elif expect == "export" and outage and code == "tool_error" and "could not be stored" in message:
        out.counts[f"{via}catalog_export: tool_error could not be stored (Redis down)"] += 1
    else:
        out.bad(f"{via}isError {code}", f"{tool} {arguments} (outage={outage}): {message[:300]}")


async def console_call(client: Client, tool: str, arguments: dict[str, Any], expect: str, out: Outcomes,
                       redis: Redis, upstream: Upstream) -> None:
    """The same call through the console's API: one preview of every target and host, the same outcome."""
    url = client.url.removesuffix("/mcp") + "/console/api/call"
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"}
    start = time.monotonic()
    response = await client.http.post(url, content=json.dumps({"tool": tool, "arguments": arguments}),
                                      headers=headers)
    outage = redis.overlaps(start, time.monotonic())
    if response.status_code == 502 and expect == "export" and outage and "did not take it" in response.text:
        out.counts["console catalog_export: not stored (Redis down)"] += 1
        return
    if response.status_code != 200:
        out.bad(f"console HTTP {response.status_code}", f"{tool} {arguments}: {response.text[:300]}")
        return
    preview = response.json()
    if len(preview.get("wires", [])) != 8 or len(preview.get("hosts", [])) != 15:
        out.bad("console preview incomplete", f"{tool}: {json.dumps(preview)[:300]}")
        return
    error = preview["document"].get("error")
    if error:
        expected_failure(tool, arguments, expect, error.get("code"), str(error.get("message", "")), outage,
                         upstream.overlaps(start, time.monotonic()), out, via="console ")
        return
    if expect == "upstream_unavailable":
        out.bad("console: misbehaving app or API answered as a success", f"{tool} {arguments}")
        return
    lost = [(h["name"], f["what"]) for h in preview["hosts"] for f in h["facts"] if not f["seen"]]
    if lost:
        out.bad("console: a host's model loses a fact", f"{tool} {arguments}: {lost[:5]}")
        return
    if expect == "export":
        links = [link["uri"] for link in preview["links"]]
        if len(links) != 1:
            out.bad("console export without one stored link", json.dumps(preview["links"])[:300])
            return
        out.links.append((links[0], client.number))
    out.counts[f"console {tool}: success"] += 1


async def one_call(client: Client, rng: random.Random, n: int, out: Outcomes, redis: Redis, upstream: Upstream,
                   args: argparse.Namespace) -> None:
    tool, arguments, expect = pick_call(rng, n, args)
    # On 2026-07-28 some app calls ask for a task, and some calls of any revision go through the
    # console (each draw is taken for every call, so that the calls stay the same whatever the
    # revision).
    as_task = rng.random() < args.task_share and tool == "soak_app" and client.revision == STATELESS
    cancel = rng.random() < args.cancel_share
    expire = rng.random() < args.expire_share
    if expire and tool == "soak_app" and arguments["mode"] == "slow" and client.revision == "2025-11-25":
        try:
            await expiring_task(client, arguments, out, redis)
        except (httpx.TransportError, ValueError) as e:
            out.bad("expiring task: dropped connection or bad answer", f"{arguments}: {e!r}")
        return
    if rng.random() < args.console_share:
        try:
            await console_call(client, tool, arguments, expect, out, redis, upstream)
        except (httpx.TransportError, ValueError) as e:
            out.bad("console: dropped connection or bad answer", f"{tool} {arguments}: {e!r}")
        return
    start = time.monotonic()
    try:
        status, answer = await client.post("tools/call", {"name": tool, "arguments": arguments}, tasks=as_task)
        if as_task and status == 200 and "result" in answer:
            answer = await follow_task(client, answer["result"], out, redis, cancel)
            if answer is None:
                return
        elif as_task and status == 200 and store_down_for_tasks(answer) and redis.overlaps(start, time.monotonic()):
            out.counts["soak_app task: not created while Redis is down"] += 1
            return
    except httpx.TimeoutException as e:
        out.bad("hang (client timeout)", f"{tool} {arguments}: {e!r}")
        return
    except (httpx.TransportError, ValueError) as e:
        out.bad("dropped connection or bad answer", f"{tool} {arguments}: {e!r}")
        return
    outage = redis.overlaps(start, time.monotonic())
    era = "stateless" if client.revision == STATELESS else "session"
    if status != 200:
        out.bad(f"HTTP {status}", f"{tool} {arguments}: {answer}")
        return
    if "error" in answer:
        code = answer["error"].get("code")
        if code != -32603 and outage and tool == "catalog_export":
            out.counts[f"{tool}: JSON-RPC {code} during outage"] += 1
        else:
            out.bad(f"JSON-RPC {code}", f"{tool} {arguments} (outage={outage}): {json.dumps(answer)[:300]}")
        return
    result = answer.get("result", {})
    if result.get("isError"):
        failure = failure_of(result)
        expected_failure(tool, arguments, expect, failure.get("code"), str(failure.get("error", "")),
                         outage, upstream.overlaps(start, time.monotonic()), out)
        return
    if expect == "upstream_unavailable":
        out.bad("misbehaving app or API answered as a success", f"{tool} {arguments}: {json.dumps(result)[:300]}")
        return
    if expect == "export":
        links = stored_links(result)
        if len(links) != 1 or not links[0].startswith("toolwire://results/"):
            out.bad("export without one stored link", json.dumps(result)[:300])
            return
        out.counts[f"catalog_export: stored link ({era})"] += 1
        out.links.append((links[0], client.number))
        await read_link(client, links[0], out, redis, final=False)
        return
    out.counts[f"{tool}: success ({era})"] += 1


async def run_client(number: int, url: str, calls: list[int], out: Outcomes, redis: Redis, upstream: Upstream,
                     args: argparse.Namespace, done: list[int]) -> None:
    revisions = [*HANDSHAKE, STATELESS]
    revision = revisions[number % len(revisions)]
    rng = random.Random(args.seed * 100003 + number)
    client = Client(url, revision, number)
    try:
        await client.connect()
        for n in calls:
            await one_call(client, rng, n, out, redis, upstream, args)
            done[0] += 1
    except Exception as e:  # noqa: BLE001 - any failure of a client is a finding to report
        out.bad("client failed", f"client {number} ({revision}): {e!r}")
    finally:
        await client.close()


async def outages(redis: Redis, total: int, done: list[int], count: int, down_seconds: float, out: Outcomes) -> None:
    """Kills and restarts Redis `count` times, at evenly spread fractions of the calls done."""
    for i in range(1, count + 1):
        target = total * i // (count + 1)
        while done[0] < target:
            await asyncio.sleep(0.05)
        redis.kill()
        out.counts["redis outages"] += 1
        await asyncio.sleep(down_seconds)
        await asyncio.to_thread(redis.restart)


async def upstream_kills(upstream: Upstream, total: int, done: list[int], count: int, out: Outcomes) -> None:
    """Kills the upstream `count` times, halfway between the Redis outages."""
    for i in range(count):
        target = total * (2 * i + 1) // (2 * count + 2)
        while done[0] < target:
            await asyncio.sleep(0.05)
        if upstream.kill():
            out.counts["upstream kills"] += 1
        else:
            out.bad("upstream not running to be killed", f"kill {i + 1} of {count}")


async def upstream_back(client: Client, out: Outcomes) -> bool:
    """Whether the upstream's tool answers again after the last kill (within UPSTREAM_GRACE)."""
    deadline = time.monotonic() + UPSTREAM_GRACE
    while time.monotonic() < deadline:
        status, answer = await client.post("tools/call", {"name": "up_catalog_get", "arguments": {"id": 1}})
        if status == 200 and "result" in answer and not answer["result"].get("isError"):
            return True
        await asyncio.sleep(0.25)
    out.bad("upstream not back", f"up_catalog_get still failing {UPSTREAM_GRACE} s after the run")
    return False


async def sample_rss(pid: int, peak: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    peak[0] = max(peak[0], int(line.split()[1]))
                    peak[1] = int(line.split()[1])
        except OSError:
            return
        await asyncio.sleep(0.25)


async def soak(url: str, gateway_pid: int, redis: Redis, upstream: Upstream,
               args: argparse.Namespace) -> tuple[Outcomes, dict[str, Any]]:
    out = Outcomes()
    done = [0]
    peak = [0, 0]
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(gateway_pid, peak, stop))
    await asyncio.sleep(0.3)
    rss_start = peak[1]
    shares = [list(range(c, args.calls, args.clients)) for c in range(args.clients)]
    start = time.monotonic()
    killer = asyncio.create_task(outages(redis, args.calls, done, args.outages, args.down_seconds, out))
    upstream_killer = asyncio.create_task(upstream_kills(upstream, args.calls, done, args.outages, out))
    clients = [asyncio.create_task(run_client(c, url, shares[c], out, redis, upstream, args, done))
               for c in range(args.clients)]
    try:
        await asyncio.wait_for(asyncio.gather(*clients), timeout=args.max_seconds)
    except TimeoutError:
        out.bad("run over --max-seconds", f"{done[0]} of {args.calls} calls done in {args.max_seconds} s")
        for task in clients:
            task.cancel()
    elapsed = time.monotonic() - start
    if done[0] >= args.calls:
        await killer
        await upstream_killer
    else:
        killer.cancel()
        upstream_killer.cancel()
    if redis.proc is None or redis.proc.poll() is not None:
        await asyncio.to_thread(redis.restart)
    # Every link issued reads back whole now that Redis is up (the append-only file kept them).
    final = Client(url, STATELESS, -1)
    back = await upstream_back(final, out)
    whole_at_end = 0
    for uri, _ in out.links:
        try:
            if await read_link(final, uri, out, redis, final=True):
                whole_at_end += 1
        except httpx.HTTPError as e:
            out.bad("final read dropped", f"{uri}: {e!r}")
    await final.close()
    await asyncio.sleep(0.5)
    rss_end = peak[1]
    stop.set()
    await sampler
    figures = {
        "clients": args.clients,
        "calls": args.calls,
        "calls_done": done[0],
        "seconds": round(elapsed, 1),
        "calls_per_second": round(done[0] / elapsed, 1) if elapsed else 0,
        "redis_outages": len(redis.down),
        "upstream_kills": len(upstream.killed),
        "upstream_back_at_end": back,
        "outage_seconds": [round(back - killed, 2) for killed, back in redis.down],
        "links_issued": len(out.links),
        "links_whole_at_end": whole_at_end,
        "reads_whole_total": out.reads_whole,
        "reads_refused_during_outages": out.reads_during_outage,
        "rss_start_mib": round(rss_start / 1024, 1),
        "rss_peak_mib": round(peak[0] / 1024, 1),
        "rss_end_mib": round(rss_end / 1024, 1),
        "rss_bound_mib": args.rss_bound_mib,
        "outcomes": dict(sorted(out.counts.items())),
        "unexpected": out.unexpected,
    }
    if peak[0] / 1024 > args.rss_bound_mib:
        out.bad("RSS over the bound", f"peak {peak[0] / 1024:.1f} MiB > {args.rss_bound_mib} MiB")
        figures["unexpected"] = out.unexpected
    return out, figures


def config(redis_port: int, app_port: int, binary: str, work: Path) -> str:
    return f"""[store]
url = "redis://127.0.0.1:{redis_port}/"
signing_keys_env = "{KEYS_ENV}"
# Far over what a run stores (150 000 calls store about 270 MB): the quotas have tests of their
# own, and a refusal at the quota reads like one while Redis is down.
quota_total = {QUOTA}
quota_per_principal = {QUOTA}

[transport]
max_connections = 4096

[[auth.tokens]]
token = "{TOKEN}"
principal = "soak"
privileges = []

[[tools]]
name = "soak_app"
description = "Echo a number; the mode argument says how the app misbehaves."
endpoint = "http://127.0.0.1:{app_port}/tool"
timeout_ms = {APP_TIMEOUT_MS}
task = "optional"
input_schema = {{ type = "object", properties = {{ mode = {{ type = "string" }}, n = {{ type = "integer" }} }} }}

[[openapi]]
name = "soakapi"
spec = "http://127.0.0.1:{app_port}/openapi.json"
base_url = "http://127.0.0.1:{app_port}"
tool_prefix = "api_"
timeout_ms = {APP_TIMEOUT_MS}

[[upstreams]]
name = "up"
command = ["sh", "-c", "echo $$ > \\"$0\\"; exec \\"$1\\" serve --stdio --data-dir \\"$2\\"", "{work / 'up.pid'}", "{binary}", "{work / 'up-data'}"]
env = {{ TOOLWIRE_LOG = "error" }}
tool_prefix = "up_"
tools = ["catalog_get"]
timeout_ms = 3000
"""


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Soak test of toolwire serve.")
    p.add_argument("--binary", required=True, help="the toolwire binary")
    p.add_argument("--clients", type=int, default=int(os.environ.get("SOAK_CLIENTS", 200)))
    p.add_argument("--calls", type=int, default=int(os.environ.get("SOAK_CALLS", 50_000)))
    p.add_argument("--smoke", action="store_true", help="20 clients x 3000 calls, 2 outages")
    p.add_argument("--outages", type=int, default=int(os.environ.get("SOAK_OUTAGES", 3)))
    p.add_argument("--down-seconds", type=float, default=2.0, help="how long each Redis outage lasts")
    p.add_argument("--export-share", type=float, default=0.01)
    p.add_argument("--app-share", type=float, default=0.2)
    p.add_argument("--api-share", type=float, default=0.1)
    p.add_argument("--upstream-share", type=float, default=0.1)
    p.add_argument("--task-share", type=float, default=0.25,
                   help="the share of 2026-07-28 soak_app calls that declare the tasks extension")
    p.add_argument("--cancel-share", type=float, default=0.2,
                   help="the share of tasks cancelled as soon as they are created")
    p.add_argument("--expire-share", type=float, default=0.5,
                   help="the share of slow app calls of 2025-11-25 clients made tasks that expire first")
    p.add_argument("--console-share", type=float, default=0.02,
                   help="the share of calls made through the console's API instead of tools/call")
    p.add_argument("--rss-bound-mib", type=float, default=float(os.environ.get("SOAK_RSS_BOUND_MIB", 256)))
    p.add_argument("--max-seconds", type=float, default=float(os.environ.get("SOAK_MAX_SECONDS", 1800)))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args(argv)
    if args.smoke:
        args.clients, args.calls, args.outages = 20, 3000, 2
    if args.clients < 1 or args.calls < args.clients:
        p.error("need at least one client and at least one call per client")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    redis_binary = shutil.which("redis-server")
    if redis_binary is None:
        print("redis-server not found (apt-get install redis-server)", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="toolwire-soak-"))
    procs: list[subprocess.Popen[bytes]] = []
    redis = Redis(redis_binary, free_port(), work)
    gateway_log = work / "gateway.log"
    try:
        redis.start()
        app_port = free_port()
        procs.append(subprocess.Popen([sys.executable, str(Path(__file__).with_name("app.py")), str(app_port),
                                       str(APP_SLOW_SECONDS)]))
        wait_for_port(app_port, procs[-1], "the soak app")
        (work / "toolwire.toml").write_text(config(redis.port, app_port, args.binary, work))
        secret = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
        env = dict(os.environ, **{KEYS_ENV: json.dumps({"keys": [{"kid": "soak-1", "secret": secret}]})},
                   RUST_LOG="error")
        port = free_port()
        (work / "data").mkdir()
        with open(gateway_log, "wb") as log:
            procs.append(subprocess.Popen(
                [args.binary, "serve", "--config", str(work / "toolwire.toml"), "--listen", f"127.0.0.1:{port}",
                 "--data-dir", str(work / "data")],
                stdout=log, stderr=subprocess.STDOUT, env=env,
            ))
        gateway = procs[-1]
        try:
            wait_for_port(port, gateway, "toolwire serve")
        except RuntimeError:
            print(gateway_log.read_text(errors="replace"), file=sys.stderr)
            raise
        print(f"soak: {args.clients} clients x {args.calls} calls, {args.outages} Redis outages of "
              f"{args.down_seconds} s, gateway pid {gateway.pid} on :{port}", flush=True)
        upstream = Upstream(work / "up.pid")
        out, figures = asyncio.run(soak(f"http://127.0.0.1:{port}/mcp", gateway.pid, redis, upstream, args))
        if gateway.poll() is not None:
            out.bad("gateway exited", f"exit status {gateway.returncode}")
            figures["unexpected"] = out.unexpected
        print(json.dumps(figures, indent=2))
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
        failed = sum(v for k, v in out.counts.items() if k.startswith("UNEXPECTED"))
        if figures["links_whole_at_end"] != figures["links_issued"]:
            failed += 1
            print("FAIL: not every issued link read back whole at the end", file=sys.stderr)
        if failed or figures["calls_done"] != args.calls:
            print(f"FAIL: {failed} unexpected outcomes; the gateway log's tail:", file=sys.stderr)
            print("\n".join(gateway_log.read_text(errors="replace").splitlines()[-20:]), file=sys.stderr)
            return 1
        print("soak: every assertion held")
        return 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
