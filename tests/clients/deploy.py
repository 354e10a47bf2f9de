"""A deployed gateway as an operator and a remote MCP client see it.

Starts a small OAuth authorization server here (an RSA key generated now, RFC 8414 metadata and a
JWKS served on loopback, RS256 access tokens minted with PyJWT), ``redis-server`` on a free port
and one ``toolwire serve`` that uses both. Then:

- the official Python SDK client (``mcp``) without a token is refused; the SDK's own helpers read
  the Protected Resource Metadata URL from the 401, and that metadata (validated by the SDK's
  model) names the authorization server, whose metadata names the issuer;
- with a token from that issuer the SDK client reaches the tools, and the scope it carries grants
  the privilege a real price update needs;
- ``/metrics`` is parsed by ``prometheus_client``'s text parser, and its counters move as calls
  are made;
- ``/readyz`` is 200, turns 503 naming Redis when Redis is stopped, and 200 again once it is back.

Usage: python deploy.py TOOLWIRE_BINARY
Exits 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from loopback import finish, free_port, report, wait_for_port
from mcp.client import Client
from mcp.client.auth.utils import (
    build_protected_resource_metadata_discovery_urls,
    extract_resource_metadata_from_www_auth,
    handle_auth_metadata_response,
    handle_protected_resource_response,
)
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from prometheus_client.parser import text_string_to_metric_families

KEYS_ENV = "TOOLWIRE_SIGNING_KEYS"
failures: list[str] = []


def check(ok: bool, what: str) -> None:
    print(f"  {'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        failures.append(what)


class Issuer:
    """An authorization server that only publishes its metadata and keys, and mints tokens."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "rsa-" + secrets.token_hex(4)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        jwk.update({"kid": self.kid, "use": "sig", "alg": "RS256"})
        self.jwks = {"keys": [jwk]}
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server API)
                if self.path == "/.well-known/oauth-authorization-server":
                    body = {
                        "issuer": issuer.url,
                        "jwks_uri": f"{issuer.url}/jwks",
                        "authorization_endpoint": f"{issuer.url}/authorize",
                        "token_endpoint": f"{issuer.url}/token",
                        "response_types_supported": ["code"],
                    }
                elif self.path == "/jwks":
                    body = issuer.jwks
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def mint(self, audience: str, scope: str, subject: str = "dana") -> str:
        now = int(time.time())
        claims = {"iss": self.url, "aud": audience, "sub": subject, "scope": scope,
                  "iat": now, "nbf": now - 5, "exp": now + 600}
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.kid})


def metrics(ops_url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx2.get(f"{ops_url}/metrics").text
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def calls(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], tool: str) -> float:
    return sum(v for (name, labels), v in samples.items()
               if name == "toolwire_calls_total" and ("tool", tool) in labels)


async def as_client(url: str, audience: str, issuer: Issuer, ops_url: str) -> None:
    print("without a token")
    seen: list[httpx2.Response] = []

    async def keep(response: httpx2.Response) -> None:
        seen.append(response)

    bare_http = httpx2.AsyncClient(event_hooks={"response": [keep]})
    try:
        async with Client(streamable_http_client(url, http_client=bare_http), mode="2026-07-28",
                          raise_exceptions=True) as bare:
            await bare.list_tools()
        check(False, "the SDK client without a token was served")
    except Exception as e:  # the SDK turns the 401 into an error of its own (in a group)
        check(True, f"the SDK client without a token is refused: {type(e).__name__}")
    refused = next((r for r in seen if r.status_code == 401), None)
    check(refused is not None, f"what the SDK client got was a 401: {[r.status_code for r in seen]}")
    if refused is None:
        return
    prm_url = extract_resource_metadata_from_www_auth(refused)
    expected = audience.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    check(prm_url == expected, f"the SDK reads the metadata URL from the 401: {prm_url}")
    candidates = build_protected_resource_metadata_discovery_urls(prm_url, url)
    async with httpx2.AsyncClient() as http:
        prm = await handle_protected_resource_response(await http.get(candidates[0]))
        check(prm is not None, "the SDK accepts the Protected Resource Metadata")
        if prm is None:
            return
        check(str(prm.resource) == audience, f"it names this resource: {prm.resource}")
        servers = [str(s).rstrip("/") for s in prm.authorization_servers]
        check(servers == [issuer.url], f"and the authorization server: {servers}")
        check(prm.scopes_supported == ["catalog.write"], f"and the scopes: {prm.scopes_supported}")
        ok, asm = await handle_auth_metadata_response(
            await http.get(f"{servers[0]}/.well-known/oauth-authorization-server"))
        check(ok and asm is not None and str(asm.issuer).rstrip("/") == issuer.url,
              "whose metadata names the issuer the tokens come from")

    before = metrics(ops_url)
    print("with a token from the issuer")
    for mode in ["legacy", "2026-07-28"]:
        token = issuer.mint(audience, "catalog.write")
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with Client(streamable_http_client(url, http_client=http), mode=mode, raise_exceptions=True) as c:
            tools = await c.list_tools()
            check("catalog_update_price" in [t.name for t in tools.tools], f"{mode}: tools listed")
            count = await c.call_tool("catalog_count", {})
            check(count.is_error is False, f"{mode}: catalog_count served")
            update = await c.call_tool("catalog_update_price", {"id": 3, "price": 12.5})
            data = update.structured_content or {}
            check(update.is_error is False and data.get("newPrice") == 12.5,
                  f"{mode}: the scope catalog.write grants a real price update: {data}")
    narrow = issuer.mint(audience, "")
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {narrow}"})
    async with Client(streamable_http_client(url, http_client=http), mode="2026-07-28", raise_exceptions=True) as c:
        update = await c.call_tool("catalog_update_price", {"id": 3, "price": 1.5})
        check(update.is_error is True, "without the scope a real update is refused (missing_privilege)")
    after = metrics(ops_url)
    print("metrics")
    for tool, made in [("catalog_count", 2), ("catalog_update_price", 3)]:
        moved = calls(after, tool) - calls(before, tool)
        check(moved == made, f"toolwire_calls_total for {tool} moved by {made} (got {moved})")
    key = ("toolwire_calls_total", (("outcome", "missing_privilege"), ("revision", "2026-07-28"),
                                   ("tool", "catalog_update_price")))
    check(after.get(key, 0) - before.get(key, 0) == 1, "the refused update is counted by its outcome")
    hist = [v for (n, labels), v in after.items()
            if n == "toolwire_call_duration_seconds_count" and ("tool", "catalog_count") in labels]
    check(hist and hist[0] >= 2, f"the duration histogram counts the calls: {hist}")
    check(("toolwire_open_sessions", ()) in after, "open sessions are a gauge")


def readiness(ops_url: str, redis_cmd: list[str], procs: dict[str, subprocess.Popen[bytes]],
              redis_port: int) -> None:
    print("readiness")
    ready = httpx2.get(f"{ops_url}/readyz")
    check(ready.status_code == 200, f"/readyz is 200 with Redis up: {ready.text}")
    check(httpx2.get(f"{ops_url}/healthz").status_code == 200, "/healthz is 200")
    procs["redis"].terminate()
    procs["redis"].wait(timeout=10)
    down = httpx2.get(f"{ops_url}/readyz", timeout=30)
    reasons = down.json().get("reasons", []) if down.status_code == 503 else []
    check(down.status_code == 503 and any("redis" in r for r in reasons),
          f"/readyz is 503 naming Redis once it stops: {down.status_code} {down.text[:200]}")
    check(httpx2.get(f"{ops_url}/healthz").status_code == 200, "/healthz stays 200 (the process is alive)")
    procs["redis"] = subprocess.Popen(redis_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(redis_port, procs["redis"], "redis-server")
    deadline = time.monotonic() + 30
    status = 0
    while time.monotonic() < deadline:
        status = httpx2.get(f"{ops_url}/readyz", timeout=30).status_code
        if status == 200:
            break
        time.sleep(0.5)
    check(status == 200, f"/readyz is 200 again once Redis is back (got {status})")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[0])
    redis = shutil.which("redis-server")
    if redis is None:
        print("redis-server not found (apt-get install redis-server)", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="toolwire-deploy-"))
    procs: dict[str, subprocess.Popen[bytes]] = {}
    issuer = Issuer()
    try:
        redis_port = free_port()
        redis_cmd = [redis, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                     "--appendonly", "no", "--dir", str(tmp)]
        procs["redis"] = subprocess.Popen(redis_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(redis_port, procs["redis"], "redis-server")
        port, ops_port = free_port(), free_port()
        audience = f"http://127.0.0.1:{port}/mcp"
        config = tmp / "toolwire.toml"
        config.write_text("\n".join([
            "[store]", f'url = "redis://127.0.0.1:{redis_port}"', f'signing_keys_env = "{KEYS_ENV}"', "",
            "[ops]", f'listen = "127.0.0.1:{ops_port}"', "",
            "[auth.oauth]", f'issuer = "{issuer.url}"', f'audience = "{audience}"',
            'scopes = { "catalog.write" = ["catalog:write"] }', "",
        ]))
        secret = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
        env = dict(os.environ, **{KEYS_ENV: json.dumps({"keys": [{"kid": "deploy-1", "secret": secret}]})})
        env.pop("TOOLWIRE_PHASE", None)
        log = open(tmp / "toolwire.log", "wb")
        procs["toolwire"] = subprocess.Popen(
            [binary, "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}"],
            env=env, stdout=subprocess.DEVNULL, stderr=log)
        wait_for_port(port, procs["toolwire"], "toolwire serve")
        wait_for_port(ops_port, procs["toolwire"], "toolwire ops listener")
        ops_url = f"http://127.0.0.1:{ops_port}"
        check(httpx2.get(f"http://127.0.0.1:{port}/metrics").status_code == 404,
              "with ops.listen the metrics are not on the MCP address")
        asyncio.run(as_client(audience, audience, issuer, ops_url))
        readiness(ops_url, redis_cmd, procs, redis_port)
    except Exception as e:
        failures.append(f"{type(e).__name__}: {e}")
        print(f"  FAIL {type(e).__name__}: {e}")
    finally:
        for proc in procs.values():
            proc.terminate()
        for proc in procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        issuer.server.shutdown()
        finish(failures, tmp, "toolwire.log")
    return report(failures, "every deployment check passed")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
