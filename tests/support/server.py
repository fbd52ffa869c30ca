"""Start the real app (`python -m attnviz.ui.serve`: `streamlit run app.py` with its first-session
fix) on a free port, wait until it is healthy, stop it.

Used by the browser tests' `app_url` fixture and by the benchmarks that time the app in Chromium:

    with serving() as app:
        page.goto(app.url)
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from attnviz.ui.plotly_in_view import EVERY
from tests.support.pages import ROOT


@dataclass
class AppServer:
    proc: subprocess.Popen
    url: str
    log: IO | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(
    log_path: Path | None = None,
    timeout: float = 90,
    env: Mapping[str, str] | None = None,
    every_chart: bool = True,
) -> AppServer:
    """A headless server on a free port, healthy when this returns (output to `log_path`, or
    discarded; `env`: variables set for it, over this process's; `every_chart`: every chart of
    a page drawn at once, far below the screen too, for checks that read them all: see
    attnviz.ui.plotly_in_view); raises RuntimeError, with the server stopped, if it exits or
    stays unhealthy."""
    env = {EVERY: "1" if every_chart else "0", **(env or {})}
    port = free_port()
    log = log_path.open("w") if log_path else None  # noqa: SIM115 (closed by stop)
    cmd = [sys.executable, "-m", "attnviz.ui.serve", "--server.headless", "true"]
    cmd += ["--server.port", str(port), "--server.fileWatcherType", "none"]
    cmd += ["--browser.gatherUsageStats", "false"]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=log or subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        env={**os.environ, **env},
    )
    server = AppServer(proc, f"http://127.0.0.1:{port}", log)
    try:
        wait_healthy(server, timeout)
    except BaseException:
        stop(server)
        raise
    return server


def wait_healthy(server: AppServer, timeout: float = 90) -> None:
    """Poll /_stcore/health until it answers 200."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if server.proc.poll() is not None:
            where = f"; see {server.log.name}" if server.log else ""
            raise RuntimeError(f"streamlit exited with {server.proc.returncode}{where}")
        try:
            with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.05)  # a cold start's figure (benchmarks.browser) is read to this
    raise RuntimeError(f"streamlit did not become healthy within {timeout:.0f} s")


def stop(server: AppServer) -> None:
    """Terminate the server (kill it after 15 s) and close its log."""
    server.proc.terminate()
    try:
        server.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait(timeout=15)
    if server.log:
        server.log.close()


@contextmanager
def serving(
    log_path: Path | None = None, env: Mapping[str, str] | None = None, every_chart: bool = True
) -> Iterator[AppServer]:
    server = start(log_path, env=env, every_chart=every_chart)
    try:
        yield server
    finally:
        stop(server)


def descendants(pid: int) -> dict[int, int]:
    """{process: its parent} for every process below `pid`, read from ps."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = (int(x) for x in line.split())
        children.setdefault(parent, []).append(child)
    found, todo = {}, [pid]
    while todo:
        parent = todo.pop()
        for kid in children.get(parent, []):
            found[kid] = parent
            todo.append(kid)
    return found
