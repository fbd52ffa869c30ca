"""deploy/start.sh: two replicas behind HAProxy, session affinity, a load run through the proxy.

HAProxy logs every request with the replica that served it (deploy/haproxy.cfg.template), and
each simulated tab marks its page GET and websocket with `?tab=<name>`, so the tests read in
HAProxy's log where each tab's requests really went. The tests run in file order on one
deployment; the last one stops it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import re
import shutil
import signal
import statistics
import subprocess
import time
import urllib.request
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any, TypeVar

import pytest

from attnviz.ui.warm_up import MODE_ENV as WARM_ENV
from benchmarks.load import run_level
from benchmarks.load_classroom import classroom
from benchmarks.load_client import StreamlitSession
from benchmarks.load_procs import ProcessTree, cmdline
from tests.support.pages import ROOT
from tests.support.server import free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("haproxy") is None,
        reason="haproxy is not installed (scripts/test.sh installs it: apt-get install haproxy)",
    ),
]
T = TypeVar("T")
LOG_LINE = re.compile(r"replicas/(r\d+) .*\"GET (\S+) HTTP")


@dataclass
class Deployment:
    proc: subprocess.Popen
    url: str
    run_dir: Path
    banner: str  # the line start.sh prints once everything is up
    base_port: int  # replica r<i> listens on base_port + i - 1
    database_url: str  # the live classroom's (an SQLite file both replicas share)

    def served(self) -> list[tuple[str, str]]:
        """[(replica, path)] for every request HAProxy has logged."""
        text = (self.run_dir / "haproxy.log").read_text()
        return [(m.group(1), m.group(2)) for m in LOG_LINE.finditer(text)]

    def replicas_of(self, tag: str) -> set[str]:
        return {r for r, path in self.served() if re.search(rf"[?&]tab={tag}(&|$)", path)}


def start_deployment(database_url: str) -> tuple[subprocess.Popen, int, int, str, list[str]]:
    """deploy/start.sh with 2 replicas on free ports: (process, port, base port, its "AttnViz
    on" line or "" if it exited first, what it printed)."""
    port, base = free_port(), free_port()
    cmd = ["bash", "deploy/start.sh", "--replicas", "2", "--port", str(port)]
    cmd += ["--base-port", str(base)]
    # light warm-up: these tests serve the small pages, not the 540 MB language model (each
    # replica's full warm-up, a restarted one's too, cost the suite ~6 s of CPU; the warm-up
    # itself is tested in tests/app/test_warm_up_pages.py and tests/browser/test_first_visit.py)
    env = {**os.environ, "ATTNVIZ_DATABASE_URL": database_url, WARM_ENV: "light"}
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    printed: list[str] = []
    deadline = time.time() + 240
    while time.time() < deadline:
        line = proc.stdout.readline()
        printed.append(line)
        if line.startswith("AttnViz on"):
            return proc, port, base, line, printed
        if not line and proc.poll() is not None:
            break
    return proc, port, base, "", printed


@pytest.fixture(scope="module")
def deployment(tmp_path_factory) -> Iterator[Deployment]:
    database_url = f"sqlite:///{tmp_path_factory.mktemp('rooms')}/classroom.db"
    for attempt in range(2):  # a port picked free can be taken meanwhile (base + 1 unchecked)
        proc, port, base, line, printed = start_deployment(database_url)
        if line:
            break
        if proc.poll() is None:
            proc.kill()
        if attempt:
            pytest.fail(f"deploy/start.sh exited with {proc.poll()}: {''.join(printed)[-2000:]}")
    run_dir = Path(re.search(r"logs in (\S+)\)", line).group(1))
    yield Deployment(proc, f"http://127.0.0.1:{port}", run_dir, line, base, database_url)
    if proc.poll() is None:
        proc.terminate()
        proc.wait(timeout=30)


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """asyncio.run in a thread of its own: the browser tests' Playwright (sync API) leaves an
    event loop running in the test thread, where asyncio.run refuses to start."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def fresh_client() -> tuple[urllib.request.OpenerDirector, CookieJar]:
    jar = CookieJar()
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar)), jar


def test_health_through_the_proxy(deployment):
    with urllib.request.urlopen(f"{deployment.url}/_stcore/health", timeout=10) as resp:
        assert resp.status == 200
        assert resp.read() == b"ok"
    tree = ProcessTree([deployment.proc.pid]).descendants()
    names = [cmdline(pid) for pid, parent in tree.items() if parent == deployment.proc.pid]
    assert sum("attnviz.ui.serve" in n for n in names) == 2, names
    assert sum(n.startswith("haproxy") for n in names) == 1, names


def test_the_replicas_share_the_cores_for_training(deployment):
    """Each replica's pool gets the cores ÷ replicas (at least 1), not one worker per core each:
    two replicas on C cores would otherwise run 2C trainings at once."""
    per_replica = max(1, (os.cpu_count() or 1) // 2)
    assert f"training workers per replica: {per_replica};" in deployment.banner


def test_each_client_stays_on_its_replica(deployment):
    clients = [fresh_client() for _ in range(2)]
    for i, (opener, _) in enumerate(clients):
        opener.open(f"{deployment.url}/home?tab=aff{i}", timeout=30).read()
    replicas = [{c.value for c in jar if c.name == "attnviz_replica"} for _, jar in clients]
    assert replicas[0] and replicas[1] and replicas[0] != replicas[1], replicas
    for i, (opener, jar) in enumerate(clients):
        for path in ("home", "_stcore/health", "soft-select", "_stcore/host-config"):
            opener.open(f"{deployment.url}/{path}?tab=aff{i}", timeout=30).read()
        assert {c.value for c in jar if c.name == "attnviz_replica"} == replicas[i]

    async def websocket(i: int, jar: CookieJar) -> bool:
        tab = StreamlitSession(deployment.url, "soft-select", tag=f"aff{i}")
        tab.cookies = jar  # the browser's cookies: the page GET and the websocket follow them
        async with tab:
            result = await tab.run()
        return result.ok

    assert all(run_async(websocket(i, jar)) for i, (_, jar) in enumerate(clients))
    time.sleep(1)  # HAProxy logs a websocket when it closes
    for i, replica in enumerate(replicas):
        assert deployment.replicas_of(f"aff{i}") == replica, deployment.served()[-20:]
        streams = [p for r, p in deployment.served() if p.startswith("/_stcore/stream?tab=aff")]
        assert f"/_stcore/stream?tab=aff{i}" in streams


def test_an_upload_goes_to_the_replica_of_its_session(deployment):
    png = (ROOT / "attnviz/ui/static").glob("*.png")
    data = next(png).read_bytes()

    async def upload() -> tuple[int, int]:
        async with StreamlitSession(deployment.url, "soft-select", tag="upload") as tab:
            assert (await tab.run()).ok and tab.session_id
            status, urls = await tab.upload("favicon.png", data, "image/png")
            assert urls.upload_url.startswith(f"/_stcore/upload_file/{tab.session_id}/")
            mine = next(c for c in tab.cookies if c.name == "attnviz_replica")
            mine.value = "r2" if mine.value == "r1" else "r1"  # now the other replica
            other, _ = await tab.upload("favicon.png", data, "image/png")
            return status, other

    status, other = run_async(upload())
    assert status in (200, 204), "the upload reached the session's replica"
    assert other == 400, "without affinity the other replica does not know the session"


def test_load_through_the_proxy_uses_both_replicas(deployment):
    pages = ["soft-select", "text", "self-attention"]
    stats = run_async(run_level(deployment.url, 6, pages, duration=5, think=1))
    assert not stats.errors, dict(stats.errors)
    assert len(stats.opens) == 6
    assert len(stats.times) >= 6, "students interacted"
    assert set(stats.replicas) == {"r1", "r2"} and min(stats.replicas.values()) > 0
    time.sleep(1)
    served = {f"s{i}": deployment.replicas_of(f"s{i}") for i in range(6)}
    assert all(len(r) == 1 for r in served.values()), served  # each tab on one replica
    assert set().union(*served.values()) == {"r1", "r2"}
    print(
        f"interactions per replica: {dict(stats.replicas)}, "
        f"median {statistics.median(stats.times):.2f} s"
    )


def healthy(url: str, within: float) -> bool:
    deadline = time.time() + within
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                return resp.status == 200
        except OSError:
            time.sleep(0.5)
    return False


def test_a_room_counts_every_vote_once_through_a_replica_killed_halfway(deployment):
    """30 students join a room through the proxy and vote within 4 s; once half of the votes are
    acknowledged, the replica not serving the projector is killed (SIGKILL). Its students
    reconnect through the proxy to the other replica with their browser ids and vote again where
    they had no acknowledgement: every student is acknowledged, the store holds exactly the
    acknowledged votes (none lost, none twice), the projector shows the count within its 2 s
    timer, and start.sh starts the killed replica again."""
    killed = []

    def kill(replica: str) -> None:
        port = deployment.base_port + int(replica.removeprefix("r")) - 1
        for pid in ProcessTree([deployment.proc.pid]).pids():
            if "attnviz.ui.serve" in cmdline(pid) and f"--server.port {port} " in cmdline(pid):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    outcome = run_async(classroom(deployment.url, deployment.database_url, 30, 4.0, kill=kill))
    assert outcome.ready == 30, dict(outcome.tally.errors)
    assert len(killed) == 1 and outcome.victim is not None
    assert outcome.tally.reconnects > 0, "the killed replica's students reconnected"
    assert outcome.acked == 30, dict(outcome.tally.errors)
    assert outcome.exactly_once, (outcome.counts, dict(outcome.tally.acked))
    assert outcome.as_browsers == 30, f"{outcome.as_browsers} of 30 votes under the browser's id"
    assert outcome.lag is not None and outcome.lag <= 2.5
    port = deployment.base_port + int(outcome.victim.removeprefix("r")) - 1
    assert healthy(f"http://127.0.0.1:{port}", within=90), "start.sh started the replica again"
    print(
        f"votes acknowledged after the kill: p95 {max(outcome.tally.times):.2f} s max, "
        f"{outcome.tally.reconnects} reconnects, projector lag {outcome.lag:.2f} s"
    )


def test_stopping_the_script_stops_every_process(deployment):
    tree = ProcessTree([deployment.proc.pid])
    started = set(tree.pids())
    assert len(started) >= 4  # start.sh, haproxy, two replicas (and their fork servers)
    deployment.proc.send_signal(signal.SIGTERM)
    assert deployment.proc.wait(timeout=40) == 143
    deadline = time.time() + 20
    while time.time() < deadline and (left := {p for p in started if cmdline(p)}):
        time.sleep(0.5)
    assert not {p for p in started if cmdline(p)}, f"still running: {left}"
    assert "stopped HAProxy and 2 replicas" in deployment.proc.stdout.read()
