"""Where training workers run: local processes (the default) or a Ray cluster.

A backend makes the two queues of a job (commands in, events out) and starts
`worker_main(args)` somewhere, returning a process-like handle (`is_alive()`, `join(timeout)`,
`terminate()`, `exitcode`). `JobPool(backend=...)` uses it; everything else about a job
(messages, pause / step / resume / stop, the queue of waiting jobs) is the same on both.

    LocalProcesses()            workers forked from a "forkserver" that preloads PRELOAD (each
                                exits with the server: attnviz.training.worker.local_worker_main)
    RayCluster("auto")          Ray tasks on a running cluster; the queues live in a Ray actor

`backend_from_environment()` reads ATTNVIZ_RAY_ADDRESS: unset or empty → LocalProcesses; otherwise a
Ray address (`auto`, `host:6379` on a node of the cluster, or `ray://host:10001` through Ray Client
from elsewhere, which needs `ray[client]`). When Ray is not installed or the address does not
answer, it logs a warning and falls back to local processes.

What the cluster needs: the same versions of Python and ray (see requirements-serve.txt) and
the app's packages (torch, attnviz) importable on every node, e.g. the repository on
PYTHONPATH when `ray start` runs there (`PYTHONPATH=/path/to/repo ray start --head`), or
`RayCluster(address, runtime_env={"py_modules": [...]})` to ship the attnviz package. Ray is
imported only when a RayCluster is made, so the app does not need it otherwise. A Ray cluster
runs whatever code reaches its ports (no authentication by default): keep them reachable from
the app server only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing as mp
import os
import queue
import signal
import socket
import sys
import time
import types
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

from attnviz.training.messages import WorkerArgs
from attnviz.training.worker import local_worker_main, worker_main

log = logging.getLogger(__name__)

RAY_ADDRESS_VARIABLE = "ATTNVIZ_RAY_ADDRESS"
# imported once by the fork server, so that each worker starts in a fraction of a second
# (torch ≈ 2 s; torch._dynamo ≈ 1.6 s, which the first optimizer imports; scikit-learn's data
# sets ≈ 2 s); a module that is missing is skipped
PRELOAD = ("torch", "torch._dynamo", "attnviz.training.worker", "sklearn.datasets")


class WorkerHandle(Protocol):
    """A running worker, as much of multiprocessing.Process as a Job uses."""

    @property
    def exitcode(self) -> int | None: ...
    def is_alive(self) -> bool: ...
    def join(self, timeout: float | None = None) -> None: ...
    def terminate(self) -> None: ...


class Backend(Protocol):
    """Makes a job's queues and starts its worker."""

    name: str

    def capacity(self, threads_per_worker: int) -> int: ...
    def queue(self) -> Any: ...
    def start(self, args: WorkerArgs) -> WorkerHandle: ...


class LocalProcesses:
    """Workers are processes of this machine, from a forkserver that preloads PRELOAD."""

    name = "local processes"

    def __init__(self) -> None:
        self.context = mp.get_context("forkserver")
        self.context.set_forkserver_preload(list(PRELOAD))
        _start_forkserver_without_main()

    def capacity(self, threads_per_worker: int) -> int:
        return os.cpu_count() or 1

    def queue(self) -> Any:
        return self.context.Queue()

    def start(self, args: WorkerArgs) -> WorkerHandle:
        process = self.context.Process(target=local_worker_main, args=(args,), daemon=True)
        with _main_hidden():
            process.start()
        return process

    def close(self) -> None:
        """End the fork server now (JobPool's exit handler calls this once its workers are
        gone). Left alone, it would exit after this process, then spend ~1 s unloading torch; a
        SIGTERM costs that second (more on a busy machine) while the server waits for it, so it
        gets SIGKILL: it only forks workers, and none is left to fork or to wait for."""
        from multiprocessing import forkserver

        pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
        if pid:  # CPython's one ForkServer of this process; a later start makes a new one
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


@contextmanager
def _main_hidden() -> Iterator[None]:
    """Hide __main__ while starting processes.

    Streamlit runs each page as a module named __main__ (with __file__ = the page), and
    multiprocessing would import that file in the fork server and in every worker, running the
    app bare there. Workers only need the factory's module.
    """
    real = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if real is not None:
            sys.modules["__main__"] = real


def _start_forkserver_without_main() -> None:
    from multiprocessing import forkserver

    with _main_hidden():
        forkserver.ensure_running()


class RayCluster:
    """Workers are Ray tasks on the cluster at `address`; a job's queues live in one mailbox
    actor of the pool (RayQueue; a finished job leaves an empty queue there, a few hundred
    bytes). Each task asks for one CPU per thread, and one GPU when the spec's `device` is
    cuda. Raises ConnectionError when the address does not answer within `connect_timeout` s,
    ImportError without ray."""

    name = "Ray cluster"

    def __init__(
        self, address: str, runtime_env: dict | None = None, connect_timeout: float = 3.0
    ) -> None:
        import ray

        self.ray, self.address = ray, address
        _check_reachable(address, connect_timeout)
        if not ray.is_initialized():
            try:
                ray.init(
                    address=address,
                    runtime_env=runtime_env,
                    logging_level=logging.WARNING,
                    log_to_driver=False,
                )
            except Exception:
                ray.shutdown()  # leave no half-made connection behind
                raise
        self._task = ray.remote(max_retries=0)(worker_main)
        # one actor holds every job's queues (an actor per queue would start a process per job);
        # it needs no CPU, so it never waits for a free one
        self.mailbox = ray.remote(_Mailbox).options(num_cpus=0, max_concurrency=10_000).remote()

    def capacity(self, threads_per_worker: int) -> int:
        cpus = int(self.ray.cluster_resources().get("CPU", 1))
        return max(1, cpus // max(1, threads_per_worker))

    def queue(self) -> Any:
        return RayQueue(self.mailbox, uuid.uuid4().hex)

    def start(self, args: WorkerArgs) -> WorkerHandle:
        gpus = 1 if str(getattr(args.spec, "device", "")).startswith("cuda") else 0
        ref = self._task.options(num_cpus=args.threads, num_gpus=gpus).remote(args)
        return RayWorker(self.ray, ref)


LONG_POLL = 5.0  # seconds a reader's pending get waits in the mailbox before answering None


class _Mailbox:
    """A Ray actor (asyncio) holding named FIFO queues; `get` answers None after `timeout` s."""

    def __init__(self) -> None:
        self.queues: dict[str, asyncio.Queue] = {}

    def _queue(self, key: str) -> asyncio.Queue:
        return self.queues.setdefault(key, asyncio.Queue())

    async def put(self, key: str, item: Any) -> None:
        self._queue(key).put_nowait(item)

    async def get(self, key: str, timeout: float) -> Any:
        try:
            return await asyncio.wait_for(self._queue(key).get(), timeout)
        except TimeoutError:
            return None


class RayQueue:
    """One named queue of the mailbox actor, with the stdlib Queue's put / get / get_nowait
    (raising queue.Empty). A reader keeps one get pending in the actor, so `get_nowait` is a
    local check (no round trip per training step); a put waits until the item is queued, so
    one writer's items keep their order. Picklable: it travels to the worker."""

    def __init__(self, mailbox: Any, key: str) -> None:
        self.mailbox, self.key = mailbox, key
        self._pending: Any = None  # the ObjectRef of this reader's pending get

    def __getstate__(self) -> dict:
        return {"mailbox": self.mailbox, "key": self.key}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["mailbox"], state["key"])

    def put(self, item: Any) -> None:
        import ray

        ray.get(self.mailbox.put.remote(self.key, item))

    def get_nowait(self) -> Any:
        return self.get(block=False)

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        import ray

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._pending is None:
                self._pending = self.mailbox.get.remote(self.key, LONG_POLL)
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _ = ray.wait([self._pending], timeout=left if block else 0)
            if not ready:
                raise queue.Empty
            item, self._pending = ray.get(self._pending), None
            if item is not None:
                return item
            if not block or (deadline is not None and time.monotonic() >= deadline):
                raise queue.Empty


class RayWorker:
    """A Ray task seen as a process: alive while its result is not ready."""

    def __init__(self, ray: Any, ref: Any) -> None:
        self.ray, self.ref = ray, ref

    def is_alive(self) -> bool:
        ready, _ = self.ray.wait([self.ref], timeout=0)
        return not ready

    def join(self, timeout: float | None = None) -> None:
        self.ray.wait([self.ref], timeout=timeout)

    def terminate(self) -> None:
        self.ray.cancel(self.ref, force=True)

    @property
    def exitcode(self) -> int | None:
        """None while running, 0 when the task returned, 1 when it failed or was cancelled."""
        if self.is_alive():
            return None
        try:
            self.ray.get(self.ref, timeout=1)
        except Exception:
            return 1
        return 0


def _check_reachable(address: str, timeout: float) -> None:
    """Fail fast (ConnectionError) when `host:port` takes no TCP connection; "auto" is left to
    ray.init, which finds a cluster started on this machine."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as err:
        raise ConnectionError(f"no Ray cluster answers at {address}: {err}") from err


def backend_from_environment(environ: Mapping[str, str] | None = None) -> Backend:
    """RayCluster(ATTNVIZ_RAY_ADDRESS) when that is set and answers, else LocalProcesses()."""
    environ = os.environ if environ is None else environ
    address = environ.get(RAY_ADDRESS_VARIABLE, "").strip()
    if address:
        try:
            cluster = RayCluster(address)
            log.info(
                "training runs on the Ray cluster at %s (%s CPUs)", address, cluster.capacity(1)
            )
            return cluster
        except Exception as err:  # never crash the app over a cluster: train locally
            log.warning(
                "%s=%s: cannot use Ray (%s: %s); training runs in local processes",
                RAY_ADDRESS_VARIABLE,
                address,
                type(err).__name__,
                err,
            )
    return LocalProcesses()
