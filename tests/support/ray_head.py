"""Start a local Ray head (the repository on its PYTHONPATH), wait until it answers, end it.

Used by the Ray backend's tests and by benchmarks/training_backends.py:

    with local_ray_head(num_cpus=2) as head:
        pool = JobPool(backend=RayCluster(head.address))     # or head.client_address (ray://)

The head runs in its own process group and temp dir, and is ended by signalling that group only
(never `ray stop`, which would end every Ray cluster on the machine).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.pages import ROOT

GRACE = 2.0  # s from SIGTERM to SIGKILL at the end: the head's processes outlived 10 s of SIGTERM
# every time (each module's teardown waited the whole 10 s), and nothing of the head is kept


@dataclass(frozen=True)
class RayHead:
    address: str  # host:port of its GCS, for a driver on this machine
    client_address: str  # ray://host:port, for Ray Client


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"ray start exited with code {process.returncode}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"no Ray head answered on port {port} within {timeout:.0f} s")


@contextmanager
def local_ray_head(num_cpus: int = 2) -> Iterator[RayHead]:
    """A Ray head on this machine for the duration of the block; this process's connection to
    it (ray.shutdown) and the head's processes end with the block."""
    import ray

    port, client_port = free_port(), free_port()
    temp_dir = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's socket paths
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_DEDUP_LOGS": "0", "OMP_NUM_THREADS": "1"}
    env["RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S"] = "120"  # a ray:// client's server: 30 s
    # is too short for a loaded machine to start one
    command = [str(Path(sys.executable).parent / "ray"), "start", "--head", "--block"]
    command += [f"--port={port}", f"--ray-client-server-port={client_port}"]
    command += [f"--num-cpus={num_cpus}", "--include-dashboard=false", "--disable-usage-stats"]
    command += [f"--temp-dir={temp_dir}"]
    head = subprocess.Popen(
        command, env=env, start_new_session=True, stdout=subprocess.DEVNULL, cwd=ROOT
    )
    try:
        wait_for_port(port, head)
        wait_for_port(client_port, head)  # the Ray Client server starts a little later
        yield RayHead(f"127.0.0.1:{port}", f"ray://127.0.0.1:{client_port}")
    finally:
        ray.shutdown()
        end_group(head, grace=GRACE)
        shutil.rmtree(temp_dir, ignore_errors=True)


def end_group(head: subprocess.Popen, grace: float = 10.0) -> None:
    """End every process of the head's group (SIGTERM, then SIGKILL after `grace` s), and
    return once none is left, so that none writes into the temp dir after it is removed."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        deadline = time.monotonic() + grace
        try:
            os.killpg(head.pid, sig)
            while time.monotonic() < deadline:
                head.poll()  # reap `ray start` itself: a zombie still counts in its group
                os.killpg(head.pid, 0)  # ProcessLookupError once the group is empty
                time.sleep(0.2)
        except ProcessLookupError:
            return
