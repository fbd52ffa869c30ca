"""The real server, offline and at its end (issue 25, item 6).

- It asks nothing outside this machine: not at start (Streamlit's external-IP lookup, unless
  `browser.serverAddress` is set: .streamlit/config.toml), not for pages, not for a websocket
  from another origin (Streamlit's CORS fallback looks the addresses up: attnviz/ui/offline.py).
- SIGTERM ends it, its fork server and every training worker within 5 s, with runs finished,
  running unpolled (a worker cannot exit while its messages fill an unread pipe: stopping one
  used to wait 3 s, then kill it, on the server's event loop, one run after the other) and
  queued. A killed server (SIGKILL) leaves no worker and no fork server either.

One server for the module (tests/support/server.py), started with RECORDER as sitecustomize.py
on PYTHONPATH: every Python process of its tree loads it (server, fork server, workers) and it
refuses, as an offline machine would, every connect, sendto or name lookup outside loopback,
writing it down with where it came from. The tests run in file order; the last stops the server.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import websockets

from benchmarks.load_client import StreamlitSession
from benchmarks.load_procs import cmdline
from tests.support.pages import ROOT
from tests.support.server import AppServer, start, stop

pytestmark = pytest.mark.slow

RECORDER = '''"""Outside requests of this process, refused and written to $ATTNVIZ_NET_RECORD
(tests/deploy/test_server_lifecycle.py); the process's id goes to $ATTNVIZ_NET_LOADED."""
import ipaddress, os, socket, traceback

RECORD = os.environ["ATTNVIZ_NET_RECORD"]
with open(os.environ["ATTNVIZ_NET_LOADED"], "a") as _out:
    _out.write(f"{os.getpid()}\\n")


def _local(host):
    host = host.decode() if isinstance(host, bytes) else host
    if host in (None, "", "localhost", "0.0.0.0", "::"):
        return True
    try:
        ip = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return str(host).endswith(".localhost")
    ip = getattr(ip, "ipv4_mapped", None) or ip
    return ip.is_loopback or ip.is_unspecified


def _refuse(kind, target, error):
    frames = traceback.extract_stack(limit=10)[:-2]
    where = " < ".join(f"{f.filename}:{f.lineno}" for f in reversed(frames))
    with open(RECORD, "a") as out:
        out.write(f"{os.getpid()} {kind} {target!r} from {where}\\n")
    raise error


def _guard_address(kind, method, at):
    def guarded(*args, **kwargs):
        address = args[at] if len(args) > 1 else None
        if isinstance(address, tuple) and not _local(address[0]):
            _refuse(kind, address, OSError(101, f"offline (test recorder): {address!r}"))
        return method(*args, **kwargs)
    return guarded


def _guard_name(kind, function):
    def guarded(host, *args, **kwargs):
        if not _local(host):
            _refuse(kind, host, socket.gaierror(socket.EAI_NONAME, f"offline: {host!r}"))
        return function(host, *args, **kwargs)
    return guarded


socket.socket.connect = _guard_address("connect", socket.socket.connect, 1)
socket.socket.connect_ex = _guard_address("connect_ex", socket.socket.connect_ex, 1)
socket.socket.sendto = _guard_address("sendto", socket.socket.sendto, -1)
socket.getaddrinfo = _guard_name("getaddrinfo", socket.getaddrinfo)
socket.gethostbyname = _guard_name("gethostbyname", socket.gethostbyname)
'''
TRAINING = "train-transformer"


@dataclass
class Recorded:
    server: AppServer
    record: Path  # one line per refused outside request
    loaded: Path  # the ids of the processes that loaded the recorder
    marker: bytes  # in the environment of every process of the server's tree

    def outside_requests(self) -> str:
        return self.record.read_text()

    def processes(self) -> dict[int, int]:
        return marked_processes(self.marker)


def marked_processes(marker: bytes) -> dict[int, int]:
    """{pid: parent} of every live (not zombie) process with `marker` in its environment,
    wherever it is now (a worker whose parent exited is someone else's child, but keeps it)."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            marked = entry.name.isdigit() and marker in (entry / "environ").read_bytes()
            stat = (entry / "stat").read_text() if marked else ""
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields and fields[0] != "Z":
            found[int(entry.name)] = int(fields[1])
    return found


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Iterator[Recorded]:
    home = tmp_path_factory.mktemp("recorder")
    (home / "sitecustomize.py").write_text(RECORDER)
    record, loaded = home / "outside.log", home / "loaded.log"
    record.touch()
    path = os.pathsep.join(p for p in (str(home), os.environ.get("PYTHONPATH", "")) if p)
    env = {"PYTHONPATH": path, "ATTNVIZ_NET_RECORD": str(record)}
    env |= {"ATTNVIZ_NET_LOADED": str(loaded), "ATTNVIZ_TRAINING_WORKERS": "2"}
    server = start(home / "server.log", env=env)
    recorded = Recorded(server, record, loaded, f"ATTNVIZ_NET_RECORD={record}\0".encode())
    yield recorded
    stop(server)  # (already stopped by the last test, unless it failed; closes the log)
    for pid in recorded.processes():  # what a failed test left behind
        os.kill(pid, signal.SIGKILL)


def test_no_outside_request_at_start_on_pages_or_for_a_websocket_from_elsewhere(recorded):
    url = recorded.server.url

    async def visit() -> None:
        for page in ("home", "soft-select"):
            async with StreamlitSession(url, page) as tab:
                result = await tab.run()
                assert result.ok, f"{page}: {result}"
        # Origin's host is neither the Host, localhost nor browser.serverAddress: Streamlit's
        # CORS fallback would look up the machine's addresses before refusing it
        stream = url.replace("http", "ws", 1) + "/_stcore/stream"
        with pytest.raises(websockets.InvalidStatus):
            await websockets.connect(
                stream, subprotocols=["streamlit"], origin="http://lecture-hall.example"
            )

    asyncio.run(visit())
    loaded = {int(line) for line in recorded.loaded.read_text().split()}
    assert recorded.server.pid in loaded, "the server did not load the recorder"
    assert recorded.outside_requests() == "", "asked outside:\n" + recorded.outside_requests()


async def start_run(url: str, query: str = "", polled: bool = True) -> StreamlitSession:
    """A tab on the training page that pressed Start; unless `polled`, nobody polls the run
    afterwards (as when its student went to another page)."""
    tab = StreamlitSession(url, TRAINING, query=query, timeout=90)
    await tab.connect()
    assert (await tab.run()).ok
    start_button = next(w for w in tab.buttons("Start") if w.id.endswith("tt_start"))
    result = await tab.click(start_button)
    assert result.ok, result
    if not polled:
        for task in tab._auto.values():  # the live panel's polling reruns
            task.cancel()
    return tab


def test_sigterm_ends_the_server_and_every_process_it_started_within_5_s(recorded):
    server = recorded.server

    async def use_and_stop() -> float:
        finished = await start_run(server.url, "tt_steps=30")
        deadline = time.time() + 60
        while not any("**done**" in text for text in finished.texts):
            assert time.time() < deadline, "the 30-step run did not finish within 60 s"
            await asyncio.sleep(0.2)
        unpolled = [await start_run(server.url, polled=False) for _ in range(3)]  # 2 run, 1 waits
        await unpolled[1].close()  # a closed tab: its session outlives it
        await asyncio.sleep(2)  # the running workers fill their unread pipes
        tree = recorded.processes()
        workers = [pid for pid, parent in tree.items() if parent in tree and parent != server.pid]
        assert server.pid in tree and len(workers) >= 2, {p: cmdline(p) for p in tree}
        start = time.perf_counter()
        os.kill(server.pid, signal.SIGTERM)
        while recorded.processes() and time.perf_counter() - start < 5:
            await asyncio.sleep(0.05)
        return time.perf_counter() - start

    took = asyncio.run(use_and_stop())
    left = {pid: cmdline(pid)[:120] for pid in recorded.processes()}
    assert not left, f"alive {took:.1f} s after SIGTERM: {left}"
    assert server.proc.wait(timeout=1) == 0
    assert recorded.outside_requests() == "", "asked outside:\n" + recorded.outside_requests()


GONE_WITHIN = 15  # s
KILLED_SERVER = """
import os, signal, time
from attnviz.training.jobs import JobPool
from attnviz.training.testing_tasks import SlowSpec
from attnviz.training.trainer import TrainConfig

job = JobPool(max_workers=1).submit(SlowSpec(0.01), TrainConfig(steps=10**6))
while job.poll().status != "running":
    time.sleep(0.05)
os.kill(os.getpid(), signal.SIGKILL)  # no exit handler, no stop: as `kill -9` or the OOM killer
"""


def test_a_killed_server_leaves_no_worker_and_no_fork_server(tmp_path):
    """A worker holds its fork server open (multiprocessing passes it the fork server's "alive"
    pipe), so after a killed server both lived on; now a worker exits with the server."""
    log = tmp_path / "server.log"
    env = {**os.environ, "ATTNVIZ_TEST_MARK": str(tmp_path)}
    with log.open("w") as out:  # not a pipe: a worker left alive would hold it open
        code = subprocess.run(
            [sys.executable, "-c", KILLED_SERVER], cwd=ROOT, env=env, stdout=out, stderr=out
        ).returncode
    assert code == -signal.SIGKILL, log.read_text()
    marker = f"ATTNVIZ_TEST_MARK={tmp_path}\0".encode()
    start = time.perf_counter()
    # a fork server still importing its preloads (torch) sees the server gone once they are in:
    # seconds on this loaded 2-core machine (over 5 s once in a full run of the suite)
    while marked_processes(marker) and time.perf_counter() - start < GONE_WITHIN:
        time.sleep(0.05)
    left = {pid: cmdline(pid)[:120] for pid in marked_processes(marker)}
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"alive {GONE_WITHIN} s after the server was killed: {left}"
