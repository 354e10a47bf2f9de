"""toolwire in front of MCP servers nobody here wrote, and of the requirements' fixture servers.

Writes a toolwire.toml with two static tokens and six stdio ``[[upstreams]]``, each under its own
``tool_prefix``: the fixtures in ``upstreams/`` (a Shopware-style legacy-envelope server and a
2025-06-18 server with array results on the official Python SDK, a Drupal-style bridge on the
official TypeScript SDK) and the official reference servers ``@modelcontextprotocol/server-everything``
and ``@modelcontextprotocol/server-memory`` (npm) and ``mcp-server-time`` (PyPI). Starts
``toolwire serve`` on a free port and, with a plain JSON-RPC client (``mcp_rpc.py``), for every
client revision 2024-11-05 … 2026-07-28:

- lists every tool (every page), valid against the revision's official schema;
- calls every tool of every upstream (``upstreams/cases.py``): each result valid against the
  official ``CallToolResult``, the revision's fields and the tool's published ``outputSchema``,
  and the fixture cases as DESIGN §2–§5 and §15 say (``structuredContent`` = the data, wrapped
  where the revision wants an object, none before 2025-06-18; ``isError`` with the message);
- reads the ~600 KB export back through its link as its principal, and is refused as another;
- shows the dry run to the model under the ``claude-code`` profile and the ``claude-ai`` client
  name, exactly as ``toolwire render --host`` renders the same envelope;

then requires ``toolwire check`` of the proxied endpoint to be clean.

Usage: python upstreams.py TOOLWIRE_BINARY
Prints one line per upstream × revision; exits 1 naming every failed check.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "upstreams"))

from cases import CASES, DRY_RUN, EXPORT  # noqa: E402
from mcp_rpc import REVISIONS, STATELESS, Client, RpcError, listing_errors, result_errors, texts  # noqa: E402

ALICE, BOB = "alice-" + secrets.token_hex(8), "bob-" + secrets.token_hex(8)
CLIENT = "toolwire-upstreams-test"  # no host profile claims it: `generic`
LIMIT = 262144  # toolwire's default size limit of every MCP revision

NODE = HERE / "node_modules" / ".bin" / "node"
NPM = HERE / "node_modules" / "@modelcontextprotocol"
DRUPAL_ENVELOPE = {  # `outputs` for cache_clear, which publishes no outputSchema
    "type": "object",
    "properties": {"success": {"type": "boolean"}, "message": {"type": "string"}, "data": {"type": "object"}},
    "required": ["success", "message", "data"],
}


def upstreams(tmp: Path) -> list[dict[str, Any]]:
    py, fixtures = sys.executable, HERE / "upstreams"
    return [
        {"name": "legacy", "tool_prefix": "shop_", "command": [py, str(fixtures / "legacy_server.py")]},
        {"name": "drupal", "tool_prefix": "drupal_", "command": [str(NODE), str(fixtures / "drupal_server.mjs")],
         "outputs": {"cache_clear": DRUPAL_ENVELOPE}},
        {"name": "array", "tool_prefix": "orders_", "command": [py, str(fixtures / "array_server.py")]},
        {"name": "everything", "tool_prefix": "everything_",
         "command": [str(NODE), str(NPM / "server-everything" / "dist" / "index.js"), "stdio"]},
        {"name": "memory", "tool_prefix": "memory_",
         "command": [str(NODE), str(NPM / "server-memory" / "dist" / "index.js")],
         "env": {"MEMORY_FILE_PATH": str(tmp / "memory.jsonl")}},
        {"name": "time", "tool_prefix": "time_",
         "command": [str(Path(py).parent / "mcp-server-time"), "--local-timezone", "Europe/Berlin"]},
    ]


def toml(value: Any) -> str:
    """A TOML value; objects as inline tables."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return json.dumps(value)


def write_config(path: Path, ups: list[dict[str, Any]]) -> None:
    lines = ["demo_tools = false", ""]
    for token, principal in [(ALICE, "alice"), (BOB, "bob")]:
        lines += ["[[auth.tokens]]", f"token = {toml(token)}", f"principal = {toml(principal)}", ""]
    for up in ups:
        lines += ["[[upstreams]]", *(f"{k} = {toml(v)}" for k, v in up.items()), "timeout_ms = 20000", ""]
    path.write_text("\n".join(lines))


def start(binary: str, config: Path, data: Path, log: Path) -> tuple[subprocess.Popen[str], str]:
    """`toolwire serve` on a free port; its URL from the log line `serving MCP on …`."""
    env = {k: v for k, v in os.environ.items() if k != "TOOLWIRE_PHASE"}
    proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--config", str(config),
                             "--data-dir", str(data)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env)
    url: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        with log.open("w") as out:
            for line in proc.stderr:  # type: ignore[union-attr]
                out.write(line)
                out.flush()
                if not url and (m := re.search(r"serving MCP on (\S+)", line)):
                    url.append(m.group(1))
                    ready.set()
        ready.set()

    threading.Thread(target=pump, daemon=True).start()
    if not ready.wait(90) or not url:
        proc.kill()
        raise RuntimeError(f"toolwire did not start; its log:\n{log.read_text()[-4000:]}")
    return proc, url[0]


@dataclass
class Cell:
    """One upstream at one revision."""
    listed: int = 0
    calls: int = 0
    problems: list[str] = field(default_factory=list)


def run_revision(url: str, revision: str, prefixes: dict[str, str], cells: dict[tuple[str, str], Cell]) -> Any:
    """Lists and calls every tool at `revision`; returns the export's result."""
    client = Client(url, revision, ALICE, CLIENT)
    tools, pages = client.list_tools()
    cells[("tools/list", revision)].listed = len(tools)
    cells[("tools/list", revision)].problems += listing_errors(revision, pages, tools)
    by_name = {t["name"]: t for t in tools}
    export = None
    for upstream, prefix in prefixes.items():
        cell = cells[(upstream, revision)]
        own = sorted(n[len(prefix):] for n in by_name if n.startswith(prefix))
        cell.listed = len(own)
        cell.problems += [f"tool {t} is listed but has no case" for t in own
                          if t not in {c.tool for c in CASES[upstream]}]
        for case in CASES[upstream]:
            name = prefix + case.tool
            where = f"{name} {json.dumps(case.arguments)[:80]}" + (f" ({case.why})" if case.why else "")
            if name not in by_name:
                if case.expect != "any":
                    cell.problems.append(f"{name} is not listed")
                continue
            cell.calls += 1
            try:
                result = client.request("tools/call", {"name": name, "arguments": case.arguments})
            except Exception as e:  # a JSON-RPC error or no answer in time: a tool's failure is a result
                cell.problems.append(f"{where}: {e}")
                continue
            problems = result_errors(revision, by_name[name], result)
            if case.expect == "success" and result.get("isError"):
                problems.append(f"an error result: {texts(result)[:300]}")
            if case.expect == "error" and not result.get("isError"):
                problems.append(f"not an error result: {texts(result)[:300]}")
            problems += case.check(revision, result) if case.check else []
            cell.problems += [f"{where}: {p}" for p in problems]
            if name == "shop_product_export":
                export = result
    client.close()
    return export


def check_export(url: str, revision: str, result: Any) -> list[str]:
    """DESIGN §4 and §6: the ~600 KB export is a stub with a link, read whole by its principal
    and refused to another with the same "not found" as any refusal."""
    if result is None:
        return ["no export result"]
    uris = re.findall(r"toolwire://results/[^\s\"')]+", texts(result))
    problems = [] if uris else [f"no stored-result link in the text blocks: {texts(result)[:300]}"]
    if "structuredContent" in result:
        problems.append("structuredContent in the offloaded stub")
    if len(json.dumps(result, separators=(",", ":"))) > LIMIT:
        problems.append(f"the stub is over {LIMIT} bytes")
    if revision >= "2025-06-18" and not any(b.get("type") == "resource_link" and b.get("uri", "").startswith(
            "toolwire://results/") for b in result.get("content", [])):
        problems.append("no resource_link block to the stored result")
    if not uris:
        return problems
    uri = uris[0].rstrip(".,;")
    read = Client(url, revision, ALICE, CLIENT).request("resources/read", {"uri": uri})
    if json.loads(read["contents"][0]["text"]) != EXPORT:
        problems.append(f"alice read back something else: {read['contents'][0]['text'][:200]}")
    try:
        Client(url, revision, BOB, CLIENT).request("resources/read", {"uri": uri})
        problems.append("bob read alice's export")
    except RpcError as e:
        want = -32602 if revision == STATELESS else -32002
        if e.code != want:
            problems.append(f"bob was refused with {e.code}, not {want}")
    return problems


def model_view(result: dict[str, Any], reads: str) -> str:
    """What a host's model is given (docs/hosts.md): only structuredContent when the host reads it."""
    if reads == "structured" and result.get("structuredContent") is not None:
        return json.dumps(result["structuredContent"])
    return texts(result)


def comparable(result: dict[str, Any]) -> dict[str, Any]:
    """A result without what two renders of one envelope may not share: the time, and the
    upstream's own `_meta`, which the gateway keeps under `upstream/meta` (DESIGN §15)."""
    meta = {k: v for k, v in result.get("_meta", {}).items() if not k.endswith("generatedAt") and k != "upstream/meta"}
    return {**result, "_meta": meta} if meta else {k: v for k, v in result.items() if k != "_meta"}


def differences(sent: Any, rendered: Any, what: str, at: str = "") -> list[str]:
    """Where the gateway's result and `toolwire render`'s differ, by path."""
    if isinstance(sent, dict) and isinstance(rendered, dict):
        return [d for k in sorted(set(sent) | set(rendered))
                for d in differences(sent.get(k), rendered.get(k), what, f"{at}/{k}")]
    if isinstance(sent, list) and isinstance(rendered, list) and len(sent) == len(rendered):
        return [d for i, (a, b) in enumerate(zip(sent, rendered)) for d in differences(a, b, what, f"{at}/{i}")]
    if sent == rendered:
        return []
    return [f"{at or '/'}: the gateway sent {json.dumps(sent)[:200]}, {what} gives {json.dumps(rendered)[:200]}"]


def check_dry_run(binary: str, url: str, revision: str) -> list[str]:
    """The dry run reaches the model under `claude-code` (reads structured) and under the client
    name `claude-ai` (the `claude-desktop` profile, reads content); there is no `claude-ai`
    profile. A structured host is published no outputSchema (DESIGN §11)."""
    problems = []
    for client_name, reads, host in [("claude-code", "structured", "claude-code"),
                                     ("claude-ai", "content", "claude-desktop")]:
        client = Client(url, revision, ALICE, client_name)
        published = [t["name"] for t in client.list_tools()[0] if "outputSchema" in t]
        if reads == "structured" and published:
            problems.append(f"{client_name}: outputSchema published for {', '.join(published)}")
        result = client.request("tools/call", {"name": "shop_product_update_price",
                                               "arguments": {"id": 7, "price": 14.0, "dryRun": True}})
        client.close()
        view = model_view(result, reads)
        if not re.search(r'"dryRun"\s*:\s*true', view) or "preview" not in view:
            problems.append(f"{client_name}: the dry run is not in what the model reads: {view[:300]}")
        rendered = subprocess.run([binary, "render", "--target", f"mcp-{revision}", "--host", host],
                                  input=DRY_RUN, capture_output=True, text=True, check=True).stdout
        problems += [f"{client_name}: {d}" for d in differences(
            comparable(result), comparable(json.loads(rendered)), f"render --host {host}")]
    return problems


def run_check(binary: str, url: str, tmp: Path, prefix: str) -> str | None:
    """`toolwire check --strict` of the endpoint, writes allowed; its report when it is not clean
    (an error or a warning). Its own generated calls (a minimal one, one missing a required
    argument) for every tool but two whose defaults fetch a file from GitHub or wait 10 s."""
    slow = {"gzip-file-as-resource", "trigger-long-running-operation"}
    cases = [{"tool": prefix + c.tool, "arguments": c.arguments} for c in CASES["everything"] if c.tool in slow]
    (tmp / "cases.json").write_text(json.dumps(cases))
    check = subprocess.run([binary, "check", "--strict", "--token", ALICE, "--allow-writes", "--cases", str(tmp / "cases.json"),
                            url], capture_output=True, text=True, timeout=900)
    print("  " + (check.stdout.strip().splitlines() or ["(no report)"])[-1])
    return None if check.returncode == 0 else f"exit {check.returncode}\n{check.stdout}{check.stderr}"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[0])
    tmp = Path(tempfile.mkdtemp(prefix="toolwire-upstreams-"))
    failures: list[str] = []
    proc = None
    try:
        ups = upstreams(tmp)
        write_config(tmp / "toolwire.toml", ups)
        proc, url = start(binary, tmp / "toolwire.toml", tmp / "data", tmp / "toolwire.log")
        print(f"toolwire serving {len(ups)} upstreams on {url}")
        prefixes = {u["name"]: u["tool_prefix"] for u in ups}
        cells = {(u, r): Cell() for u in ["tools/list", *prefixes] for r in REVISIONS}
        for revision in REVISIONS:
            export = run_revision(url, revision, prefixes, cells)
            cells[("legacy", revision)].problems += [f"export: {p}" for p in check_export(url, revision, export)]
            cells[("legacy", revision)].problems += [f"dry run: {p}" for p in check_dry_run(binary, url, revision)]
        for (upstream, revision), cell in cells.items():
            status = "ok" if not cell.problems else f"{len(cell.problems)} failed"
            calls = f", {cell.calls:>2} calls" if upstream != "tools/list" else ""
            print(f"{upstream:<11} {revision}  {cell.listed:>2} tools listed{calls}: {status}")
            for problem in cell.problems:
                print(f"  FAIL {problem}")
                failures.append(f"{upstream} @ {revision}: {problem}")
        print("toolwire check of the proxied endpoint")
        report = run_check(binary, url, tmp, prefixes["everything"])
        if report:
            print(report)
            failures.append(f"toolwire check is not clean: {report.splitlines()[0]}")
    except Exception as e:  # noqa: BLE001 (reported with the gateway's log)
        failures.append(f"{type(e).__name__}: {e}")
        print(f"FAIL {type(e).__name__}: {e}")
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()
        if failures and (tmp / "toolwire.log").exists():
            print((tmp / "toolwire.log").read_text()[-4000:], file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed (the FAIL lines and reports above)", file=sys.stderr)
        return 1
    print("every upstream answered every revision as expected; toolwire check is clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
