"""A deployment for load runs: deploy/start.sh (HAProxy in front of N replicas) with the
classroom's database (a PostgreSQL server in a temp folder, or one SQLite file), and killing one
replica the way a crash would (SIGKILL)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.load_procs import ProcessTree, cmdline
from tests.support.pages import ROOT
from tests.support.postgres import postgres_server
from tests.support.server import free_port


@dataclass
class Deployment:
    proc: subprocess.Popen
    url: str
    base_port: int
    database_url: str
    run_dir: Path


@contextlib.contextmanager
def database(sqlite: bool) -> Iterator[str]:
    """A database URL for the classroom: a fresh PostgreSQL server, or an SQLite file."""
    if sqlite:
        with tempfile.TemporaryDirectory(prefix="attnviz-room-") as folder:
            yield f"sqlite:///{folder}/classroom.db"
        return
    with postgres_server() as server:
        yield server.url


@contextlib.contextmanager
def deployment(replicas: int = 2, sqlite: bool = False) -> Iterator[Deployment]:
    """deploy/start.sh with `replicas` replicas on the classroom database; stopped after."""
    with database(sqlite) as url:
        port, base = free_port(), free_port()
        cmd = [
            "bash",
            "deploy/start.sh",
            "--replicas",
            str(replicas),
            "--port",
            str(port),
            "--base-port",
            str(base),
        ]
        env = {**os.environ, "ATTNVIZ_DATABASE_URL": url}
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        try:
            line, deadline = "", time.time() + 240
            while time.time() < deadline and not line.startswith("AttnViz on"):
                line = proc.stdout.readline()
                if not line and proc.poll() is not None:
                    raise RuntimeError(f"deploy/start.sh exited with {proc.returncode}")
            run_dir = Path(re.search(r"logs in (\S+)\)", line).group(1))
            yield Deployment(proc, f"http://127.0.0.1:{port}", base, url, run_dir)
        finally:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=60)


def kill_replica(deployed: Deployment, replica: str) -> int:
    """SIGKILL the replica named `replica` ("r1", "r2": HAProxy's names, r<i> listening on
    base_port + i - 1); returns its pid."""
    port = deployed.base_port + int(replica.removeprefix("r")) - 1
    for pid in ProcessTree([deployed.proc.pid]).pids():
        line = cmdline(pid)
        if "attnviz.ui.serve" in line and f"--server.port {port}" in line.replace("=", " "):
            os.kill(pid, signal.SIGKILL)
            return pid
    raise RuntimeError(f"no replica {replica} on port {port}")
