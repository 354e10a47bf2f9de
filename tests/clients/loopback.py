"""Loopback helpers shared by the client scripts: a free port, waiting for a process to listen, and
the end of a run (the server's log shown when a check failed, the failures counted)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port} within {timeout} s")


def finish(failures: list[str], tmp: Path, log: str) -> None:
    """Shows the end of the server's log in `tmp` when a check failed, then removes `tmp`."""
    if failures and (tmp / log).exists():
        print((tmp / log).read_text()[-4000:], file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)


def report(failures: list[str], passed: str) -> int:
    """The exit code of a run: 1 with the count of failed checks, else 0 with `passed`."""
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print(passed)
    return 0
